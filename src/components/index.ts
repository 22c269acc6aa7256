// What other parts of the platform may use of Components (DESIGN §7).
export { ComponentService, type ComponentServiceDeps } from './service.ts';
export { DeploymentService, type DeploymentServiceDeps } from './deployments.ts';
export { SourceChecker } from './source-checker.ts';
export { componentRoutes, type ComponentRouteDeps } from './routes.ts';
export { resolveRevision, resolveRevisionIn, type ResolvedRevision } from './resolve.ts';
export type { ActiveRevisionHook } from './activation.ts';
export { approvalBy, approvedFor, revisionToRun, type Approval, type ApprovedRevision, type RunAsQuestion } from '../core/definitions/approval-rule.ts';
export { ApprovalStore } from '../core/definitions/approvals.ts';
export type { ComponentVerifier, NodeRevisionToVerify, VerifyResult } from './verifier.ts';
export { componentJson, revisionJson, deploymentJson, contentFields } from './json.ts';
export { contentDigest, canonicalJson } from './digest.ts';
export type {
  ComponentContent,
  ComponentKind,
  ComponentRecord,
  ComponentView,
  DeploymentRecord,
  LowcodeElement,
  NodeResult,
  RevisionRecord,
  RevisionStatus,
} from './record.ts';
