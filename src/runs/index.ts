// Agent runs on the control plane: routes, service, store.

export { runRoutes } from './routes.ts';
export { RunService } from './service.ts';
export { RunStore } from './store.ts';
