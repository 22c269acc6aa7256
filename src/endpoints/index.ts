// Endpoints on the control plane: routes, services (definitions, settings, OpenAPI), list.

export { EndpointLister } from './list.ts';
export { EndpointOpenApi } from './openapi-service.ts';
export { type EndpointRouteDeps, endpointRoutes } from './routes.ts';
export { EndpointService } from './service.ts';
export { EndpointSettingsService } from './settings-service.ts';
export { endpointResponseSchemas } from './responses.ts';
