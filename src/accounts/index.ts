// The accounts surface of the control plane (principals, keys, workspaces, groups): routes,
// service, list.

export { AccountLister } from './list.ts';
export { accountRoutes } from './routes.ts';
export { AccountService } from './service.ts';
export { accountResponseSchemas } from './responses.ts';
