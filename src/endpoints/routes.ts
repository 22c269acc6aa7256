// HTTP routes under /api/v1/endpoints: definitions, activation, validation, settings, statistics, OpenAPI.
import { ContractStatusJson, EndpointJson, EndpointSettingsJson, EndpointStatisticsJson, GeneratedOpenApiJson, EndpointProjection } from './responses.ts';
import { Elysia } from 'elysia';
import { type httpConventions, operation } from '../http/index.ts';
import { etagOf } from '../core/http/index.ts';
import type { Database } from '../core/db/index.ts';
import { EndpointCreateBody, EndpointSettingsBody, EndpointUpdateBody } from '../core/definitions/index.ts';
import { readStatistics } from '../core/statistics/index.ts';
import { endpointJson } from './json.ts';
import type { EndpointService } from './service.ts';
import type { EndpointSettingsService } from './settings-service.ts';
import type { EndpointOpenApi } from './openapi-service.ts';
import type { EndpointLister } from './list.ts';

const admins = { auth: { roles: ['ENDPOINT_ADMIN'] as const } };
const instanceAdmin = { auth: { roles: ['INSTANCE_ADMIN'] as const } };

export interface EndpointRouteDeps {
  db: Database;
  endpoints: EndpointService;
  settings: EndpointSettingsService;
  openapi: EndpointOpenApi;
  lister: EndpointLister;
}

export function endpointRoutes(conventions: ReturnType<typeof httpConventions>, deps: EndpointRouteDeps) {
  const { endpoints, settings } = deps;
  return new Elysia({ name: 'endpoint-routes' })
    .use(conventions)
    // Static paths first: `settings` and `openapi` are not Endpoint ids.
    .get('/endpoints/settings', () => settings.get(), { ...admins, ...operation({ operationId: 'getEndpointSettings', summary: 'Instance Endpoint execution defaults', tag: 'Endpoints', responses: { 200: EndpointSettingsJson } }) })
    .put('/endpoints/settings', ({ principal, body }) => settings.put(principal, body), {
      ...instanceAdmin,
      ...operation({ operationId: 'putEndpointSettings', summary: 'Save the instance Endpoint execution defaults', tag: 'Endpoints', body: EndpointSettingsBody, responses: { 200: EndpointSettingsJson } }),
    })
    .delete('/endpoints/settings', async ({ principal, set }) => {
      await settings.delete(principal);
      set.status = 204;
    }, { ...instanceAdmin, ...operation({ operationId: 'deleteEndpointSettings', summary: 'Remove saved settings (legacy System authority)', tag: 'Endpoints', responses: { 204: 'Removed' } }) })
    .get('/endpoints/openapi', ({ principal }) => deps.openapi.all(principal), {
      ...admins,
      ...operation({ operationId: 'getEndpointsOpenApi', summary: 'Generated OpenAPI document for all active Endpoints', tag: 'Endpoints', responses: { 200: GeneratedOpenApiJson } }),
    })
    .post('/endpoints', async ({ principal, body, set }) => {
      const e = await endpoints.create(principal, body);
      set.status = 201;
      set.headers.etag = etagOf(e.version);
      return endpointJson(e);
    }, { ...admins, ...operation({ operationId: 'createEndpoint', summary: 'Create an Endpoint definition (disabled)', tag: 'Endpoints', body: EndpointCreateBody, responses: { 201: EndpointJson }, etag: true, errors: ['UNKNOWN_DIGEST', 'INVALID_DEFINITION'] }) })
    .get('/endpoints', ({ principal, request }) => deps.lister.list(principal, new URL(request.url).search), {
      ...admins,
      ...operation({ operationId: 'listEndpoints', summary: 'List Endpoint definitions (list engine)', tag: 'Endpoints', list: EndpointProjection }),
    })
    .get('/endpoints/:endpointId', async ({ principal, params, set }) => {
      const e = await endpoints.get(principal, params.endpointId);
      set.headers.etag = etagOf(e.version);
      return endpointJson(e);
    }, { ...admins, ...operation({ operationId: 'getEndpoint', summary: 'Get an Endpoint definition', tag: 'Endpoints', ids: ['endpointId'], responses: { 200: EndpointJson }, etag: true }) })
    .patch('/endpoints/:endpointId', async ({ principal, params, body, request, set }) => {
      const e = await endpoints.update(principal, params.endpointId, body, request.headers.get('if-match'));
      set.headers.etag = etagOf(e.version);
      return endpointJson(e);
    }, { ...admins, ...operation({ operationId: 'updateEndpoint', summary: 'Update an Endpoint definition (optimistic locking with version / If-Match)', tag: 'Endpoints', ids: ['endpointId'], headers: ['If-Match'], body: EndpointUpdateBody, responses: { 200: EndpointJson }, etag: true, errors: ['VERSION_CONFLICT', 'ROUTE_CONFLICT', 'PRECONDITION_FAILED', 'UNKNOWN_DIGEST', 'INVALID_DEFINITION'] }) })
    .delete('/endpoints/:endpointId', async ({ principal, params, request, set }) => {
      await endpoints.delete(principal, params.endpointId, request.headers.get('if-match'));
      set.status = 204;
    }, { ...admins, ...operation({ operationId: 'deleteEndpoint', summary: 'Delete a disabled Endpoint definition (If-Match: only at that version, else 412)', tag: 'Endpoints', ids: ['endpointId'], headers: ['If-Match'], responses: { 204: 'Deleted' }, errors: ['ENDPOINT_ACTIVE', 'PRECONDITION_FAILED'] }) })
    .post('/endpoints/:endpointId/activate', async ({ principal, params, request, set }) => {
      const e = await endpoints.activate(principal, params.endpointId, request.headers.get('if-match'));
      set.headers.etag = etagOf(e.version);
      return endpointJson(e);
    }, { ...admins, ...operation({ operationId: 'activateEndpoint', summary: 'Activate (validates the contract; 409 ROUTE_CONFLICT on an equal active route; If-Match: only from that version, else 412)', tag: 'Endpoints', ids: ['endpointId'], headers: ['If-Match'], responses: { 200: EndpointJson }, etag: true, errors: ['VERSION_CONFLICT', 'ROUTE_CONFLICT', 'PRECONDITION_FAILED', 'UNKNOWN_DIGEST', 'INVALID_DEFINITION'] }) })
    .post('/endpoints/:endpointId/disable', async ({ principal, params, request, set }) => {
      const e = await endpoints.disable(principal, params.endpointId, request.headers.get('if-match'));
      set.headers.etag = etagOf(e.version);
      return endpointJson(e);
    }, { ...admins, ...operation({ operationId: 'disableEndpoint', summary: 'Disable an Endpoint (If-Match: only from that version, else 412)', tag: 'Endpoints', ids: ['endpointId'], headers: ['If-Match'], responses: { 200: EndpointJson }, etag: true, errors: ['VERSION_CONFLICT', 'PRECONDITION_FAILED'] }) })
    .post('/endpoints/:endpointId/validate', ({ principal, params }) => endpoints.validate(principal, params.endpointId), {
      ...admins,
      ...operation({ operationId: 'validateEndpoint', summary: 'Contract validation: {valid, errors, warnings}', tag: 'Endpoints', ids: ['endpointId'], responses: { 200: ContractStatusJson } }),
    })
    .get('/endpoints/:endpointId/statistics', async ({ principal, params }) => {
      const e = await endpoints.get(principal, params.endpointId);
      return readStatistics(deps.db, e.id);
    }, { ...admins, ...operation({ operationId: 'getEndpointStatistics', summary: 'Invocation statistics', tag: 'Endpoints', ids: ['endpointId'], responses: { 200: EndpointStatisticsJson } }) })
    .get('/endpoints/:endpointId/openapi', ({ principal, params }) => deps.openapi.one(principal, params.endpointId), {
      ...admins,
      ...operation({ operationId: 'getEndpointOpenApi', summary: 'Generated OpenAPI document for one Endpoint', tag: 'Endpoints', ids: ['endpointId'], responses: { 200: GeneratedOpenApiJson } }),
    });
}
