// The contract between the origins: Endpoint records and their schema, route paths and their
// encoding, settings, approvals and bindings, and the index snapshot built from them.

export { administratorApproval, type Approval, approvalBy } from './approval-rule.ts';
export { ApprovalStore } from './approvals.ts';
export { type ComponentKind, type ComponentLookup, type ResolvedRevision, TableComponentLookup } from './component-lookup.ts';
export { activeEndpoints, buildIndexSnapshot, type IndexSnapshot, SNAPSHOT_FORMAT, type SnapshotEndpoint } from './index-snapshot.ts';
export { bumpIndexVersion, currentIndexVersion } from './index-version.ts';
export { endpointShape, pathViolations } from './path.ts';
export { decodeSegment, encodeSegment, needsNormalising } from './route-encoding.ts';
export { parseRoutePath, type RouteSegment, routeShape } from './route-path.ts';
export {
  type ContractIssue,
  type ContractStatus,
  EndpointCreateBody,
  type EndpointRecord,
  EndpointSettingsBody,
  EndpointUpdateBody,
  type ExecutionPolicy,
  validators,
} from './schema.ts';
export {
  deleteSettings,
  type EndpointSettings,
  executionAccountIdOf,
  executionModeOf,
  readSettings,
  saveDefaultsForNewInstance,
  writeSettings,
} from './settings.ts';
export { isServedHeader, staticHeaderViolations } from './static-headers.ts';
export { EndpointStore } from './store.ts';
