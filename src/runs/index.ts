// Agent runs on the control plane: routes, service, store.

export { runRoutes } from './routes.ts';
export { RunService } from './service.ts';
export { RunStore } from './store.ts';
export { ApprovalStore } from './approvals.ts';
export { type AssembledContext, type ConversationEntry, assembleContext, mergedPlugins, recallWithin } from './context.ts';
export { memoryLimits, runLimits } from './limits.ts';
export { ACTIVE_STATES, type NewEvent, type RunRecord, type RunStatus } from './record.ts';
export { RunEventStreams } from './stream.ts';
export { runResponseSchemas } from './responses.ts';
