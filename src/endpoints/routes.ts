// HTTP routes under /api/v1/endpoints: definitions, activation, validation, settings, statistics, OpenAPI.
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
    .get('/endpoints/settings', () => settings.get(), { ...admins, ...operation({ summary: 'Instance Endpoint execution defaults', tag: 'Endpoints' }) })
    .put('/endpoints/settings', ({ principal, body }) => settings.put(principal, body), {
      ...instanceAdmin,
      ...operation({ summary: 'Save the instance Endpoint execution defaults', tag: 'Endpoints', body: EndpointSettingsBody }),
    })
    .delete('/endpoints/settings', async ({ principal, set }) => {
      await settings.delete(principal);
      set.status = 204;
    }, { ...instanceAdmin, ...operation({ summary: 'Remove saved settings (legacy System authority)', tag: 'Endpoints', responses: { 204: 'Removed' } }) })
    .get('/endpoints/openapi', ({ principal }) => deps.openapi.all(principal), {
      ...admins,
      ...operation({ summary: 'Generated OpenAPI document for all active Endpoints', tag: 'Endpoints' }),
    })
    .post('/endpoints', async ({ principal, body, set }) => {
      const e = await endpoints.create(principal, body);
      set.status = 201;
      set.headers.etag = etagOf(e.version);
      return endpointJson(e);
    }, { ...admins, ...operation({ summary: 'Create an Endpoint definition (disabled)', tag: 'Endpoints', body: EndpointCreateBody, responses: { 201: 'The definition' } }) })
    .get('/endpoints', ({ principal, request }) => deps.lister.list(principal, new URL(request.url).search), {
      ...admins,
      ...operation({ summary: 'List Endpoint definitions (list engine)', tag: 'Endpoints', list: true }),
    })
    .get('/endpoints/:endpointId', async ({ principal, params, set }) => {
      const e = await endpoints.get(principal, params.endpointId);
      set.headers.etag = etagOf(e.version);
      return endpointJson(e);
    }, { ...admins, ...operation({ summary: 'Get an Endpoint definition', tag: 'Endpoints' }) })
    .patch('/endpoints/:endpointId', async ({ principal, params, body, request, set }) => {
      const e = await endpoints.update(principal, params.endpointId, body, request.headers.get('if-match'));
      set.headers.etag = etagOf(e.version);
      return endpointJson(e);
    }, { ...admins, ...operation({ summary: 'Update an Endpoint definition (optimistic locking with version / If-Match)', tag: 'Endpoints', body: EndpointUpdateBody, errors: [409, 412] }) })
    .delete('/endpoints/:endpointId', async ({ principal, params, request, set }) => {
      await endpoints.delete(principal, params.endpointId, request.headers.get('if-match'));
      set.status = 204;
    }, { ...admins, ...operation({ summary: 'Delete a disabled Endpoint definition (If-Match: only at that version, else 412)', tag: 'Endpoints', responses: { 204: 'Deleted' }, errors: [409, 412] }) })
    .post('/endpoints/:endpointId/activate', async ({ principal, params, request, set }) => {
      const e = await endpoints.activate(principal, params.endpointId, request.headers.get('if-match'));
      set.headers.etag = etagOf(e.version);
      return endpointJson(e);
    }, { ...admins, ...operation({ summary: 'Activate (validates the contract; 409 ROUTE_CONFLICT on an equal active route; If-Match: only from that version, else 412)', tag: 'Endpoints', errors: [409, 412, 422] }) })
    .post('/endpoints/:endpointId/disable', async ({ principal, params, request, set }) => {
      const e = await endpoints.disable(principal, params.endpointId, request.headers.get('if-match'));
      set.headers.etag = etagOf(e.version);
      return endpointJson(e);
    }, { ...admins, ...operation({ summary: 'Disable an Endpoint (If-Match: only from that version, else 412)', tag: 'Endpoints', errors: [412] }) })
    .post('/endpoints/:endpointId/validate', ({ principal, params }) => endpoints.validate(principal, params.endpointId), {
      ...admins,
      ...operation({ summary: 'Contract validation: {valid, errors, warnings}', tag: 'Endpoints' }),
    })
    .get('/endpoints/:endpointId/statistics', async ({ principal, params }) => {
      const e = await endpoints.get(principal, params.endpointId);
      return readStatistics(deps.db, e.id);
    }, { ...admins, ...operation({ summary: 'Invocation statistics', tag: 'Endpoints' }) })
    .get('/endpoints/:endpointId/openapi', ({ principal, params }) => deps.openapi.one(principal, params.endpointId), {
      ...admins,
      ...operation({ summary: 'Generated OpenAPI document for one Endpoint', tag: 'Endpoints' }),
    });
}
