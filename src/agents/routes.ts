// HTTP routes for Agents: create, list, get, PATCH (the spec's update operation), delete.
import { AgentJson, AgentProjection } from './responses.ts';
import { Elysia } from 'elysia';
import { type httpConventions, operation } from '../http/index.ts';
import { AgentCreateBody, AgentUpdateBody } from './schema.ts';
import { agentJson, etagOf } from './record.ts';
import type { AgentService } from './service.ts';
import type { AgentLister } from './list.ts';

const agentRoles = ['AGENT_ADMIN', 'AGENT_USER'] as const;

export function agentRoutes(conventions: ReturnType<typeof httpConventions>, agents: AgentService, lister: AgentLister) {
  return new Elysia({ name: 'agent-routes' })
    .use(conventions)
    .post('/agents', async ({ body, principal, set }) => {
      const agent = await agents.create(principal, body);
      set.status = 201;
      set.headers.etag = etagOf(agent.version);
      return agentJson(agent);
    }, {
      auth: { roles: ['AGENT_ADMIN'] },
      ...operation({ operationId: 'createAgent', summary: 'Create an Agent', tag: 'Agents', body: AgentCreateBody, responses: { 201: AgentJson }, etag: true, errors: ['RESERVED_METADATA_KEY', 'METADATA_TOO_LARGE', 'MODEL_NOT_ENABLED'] }),
    })
    .get('/agents', ({ principal, request }) => lister.list(principal, new URL(request.url).search), {
      auth: { roles: agentRoles },
      ...operation({ operationId: 'listAgents', summary: 'List Agents (list engine: filter, sort, fields, paging)', tag: 'Agents', list: AgentProjection }),
    })
    .get('/agents/:agentId', async ({ params, principal, set }) => {
      const agent = await agents.get(principal, params.agentId);
      set.headers.etag = etagOf(agent.version);
      return agentJson(agent);
    }, { auth: { roles: [] }, ...operation({ operationId: 'getAgent', summary: 'Get an Agent', tag: 'Agents', ids: ['agentId'], responses: { 200: AgentJson }, etag: true }) })
    .patch('/agents/:agentId', async ({ params, principal, body, request, set }) => {
      const agent = await agents.update(principal, params.agentId, body, request.headers.get('if-match'));
      set.headers.etag = etagOf(agent.version);
      return agentJson(agent);
    }, {
      // Owners need no agent role: the service decides (404 invisible, 403 not owner/admin).
      auth: { roles: [] },
      ...operation({
        operationId: 'updateAgent',
        summary: 'Update an Agent',
        ids: ['agentId'],
        headers: ['If-Match'],
        etag: true,
        tag: 'Agents',
        description:
          'Replaces `config`, `policy` and `metadata` when supplied; other fields are set individually. ' +
          'Optimistic locking through `version` (409 VERSION_CONFLICT) or `If-Match` (412). Returns the whole Agent record with an ETag.',
        body: AgentUpdateBody,
        responses: { 200: AgentJson },
        errors: ['VERSION_CONFLICT', 'AGENT_DISABLED', 'PRECONDITION_FAILED', 'RESERVED_METADATA_KEY', 'METADATA_TOO_LARGE', 'MODEL_NOT_ENABLED'],
      }),
    })
    .delete('/agents/:agentId', async ({ params, principal, request, set }) => {
      await agents.delete(principal, params.agentId, request.headers.get('if-match'));
      set.status = 204;
    }, { auth: { roles: [] }, ...operation({ operationId: 'deleteAgent', summary: 'Delete an Agent and its runs (If-Match: only at that version, else 412)', tag: 'Agents', ids: ['agentId'], headers: ['If-Match'], responses: { 204: 'Deleted' }, errors: ['PRECONDITION_FAILED'] }) });
}
