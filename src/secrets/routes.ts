// HTTP routes of the secrets store: create and delete. There is no read: values are never answered.
import { Elysia } from 'elysia';
import type { httpConventions } from '../http/index.ts';
import { operation } from '../http/index.ts';
import { SecretCreateBody, SecretJson } from './schema.ts';
import type { SecretRecord, SecretService } from './service.ts';

const secretJson = (secret: SecretRecord) => ({ id: secret.id, name: secret.name, workspaceId: secret.workspaceId, createdAt: secret.createdAt.toISOString() });

export function secretRoutes(conventions: ReturnType<typeof httpConventions>, secrets: SecretService) {
  return new Elysia({ name: 'secret-routes' })
    .use(conventions)
    .post('/secrets', async ({ body, principal, set }) => {
      const secret = await secrets.create(principal, body);
      set.status = 201;
      return secretJson(secret);
    }, {
      auth: { roles: ['AGENT_ADMIN'] },
      ...operation({
        operationId: 'createSecret',
        summary: 'Store a secret (MCP server credentials)',
        tag: 'Secrets',
        description: 'The value is encrypted at rest (AES-256-GCM) and never returned; an MCP server configuration names the secret by its id.',
        body: SecretCreateBody,
        responses: { 201: SecretJson },
      }),
    })
    .delete('/secrets/:id', async ({ params, principal, set }) => {
      await secrets.delete(principal, params.id);
      set.status = 204;
    }, { auth: { roles: ['AGENT_ADMIN'] }, ...operation({ operationId: 'deleteSecret', summary: 'Delete a secret', tag: 'Secrets', ids: ['id'], responses: { 204: 'Deleted' } }) });
}
