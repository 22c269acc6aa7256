// Agents on the control plane: routes, service, store, list, and the access rules runs share.

export { assertCanRead, isOwner } from './access.ts';
export { AgentLister } from './list.ts';
export type { AgentRecord } from './record.ts';
export { agentRoutes } from './routes.ts';
export { AgentService } from './service.ts';
export { AgentStore } from './store.ts';
export { assertCanWrite } from './access.ts';
export { AgentEnums, type AgentPluginConfig } from './plugin-schema.ts';
export { agentResponseSchemas } from './responses.ts';
