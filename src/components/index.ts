// What other parts of the platform may use of Components (DESIGN §7).
export { ComponentService } from './service.ts';
export { DeploymentService } from './deployments.ts';
export { SourceChecker } from './source-checker.ts';
export { componentRoutes } from './routes.ts';
export { resolveRevision } from './resolve.ts';
export type {
  ComponentRecord,
  RevisionRecord,
} from './record.ts';
export { componentResponseSchemas } from './responses.ts';
