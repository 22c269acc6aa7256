// HTTP routes of the accounts surface: /users, /service-accounts, /api-keys, /workspaces, /groups, /me, /auth/token.
import { ApiKeyCreatedJson, GroupJson, PrincipalJson, ServiceAccountJson, TokenJson, UserJson, WorkspaceJson, UserProjection, ServiceAccountProjection, ApiKeyProjection, WorkspaceProjection, GroupProjection } from './responses.ts';
import { Elysia } from 'elysia';
import { type httpConventions, operation, bearerTokenOf } from '../http/index.ts';
import { API_KEY_CLAIM, type JwtService, type CredentialResolver, type Principal } from '../core/identity/index.ts';
import type { AccountLister } from './list.ts';
import { validBody, NO_BODY } from '../core/http/index.ts';
import { ProblemError } from '../core/http/index.ts';
import { groupJson, principalJson, keyJson } from './json.ts';
import type { AccountService } from './service.ts';
import {
  ApiKeyCreate,
  GroupCreate,
  ServiceAccountCreate,
  ServiceAccountUpdate,
  TokenRequest,
  UserCreate,
  UserUpdate,
  WorkspaceCreate,
  validators,
} from './schema.ts';

const admin = { auth: { roles: ['INSTANCE_ADMIN'] as const } };
const anyPrincipal = { auth: { roles: [] as const } };
const credentialOnly = { auth: { roles: [] as const, platformAccess: false } };

/**
 * A credential outlives the invocation that would make it: component code calling api.platform
 * as its invoker (CALLER mode) would otherwise walk away with a lasting key or token of whoever
 * invoked it, an administrator included. The short-lived execution token may not mint them.
 */
function refuseInsideExecution(principal: Principal): void {
  if (principal.context?.delegation) {
    throw new ProblemError(403, 'CREDENTIAL_FROM_EXECUTION', 'API keys and tokens cannot be created with the credential of an Endpoint execution (api.platform)');
  }
}

export function accountRoutes(
  conventions: ReturnType<typeof httpConventions>,
  deps: { accounts: AccountService; jwt: JwtService; lister: AccountLister; credentials: CredentialResolver },
) {
  const { accounts, jwt, lister, credentials } = deps;
  return new Elysia({ name: 'account-routes' })
    .use(conventions)
    .post('/users', async ({ body, set, principal }) => {
      set.status = 201;
      return principalJson(await accounts.createUser(principal, body));
    }, { ...admin, ...operation({ operationId: 'createUser', summary: 'Create a user', tag: 'Accounts', body: UserCreate, responses: { 201: UserJson }, errors: ['CONFLICT'] }) })
    .get('/users', ({ principal, request }) => lister.users(principal, new URL(request.url).search),
      { ...admin, ...operation({ operationId: 'listUsers', summary: 'List users (list engine; records as GET /users/{id}; fields id, kind, name, email, roles, platformAccess, status, createdAt)', tag: 'Accounts', list: UserProjection }) })
    .get('/users/:id', async ({ params }) => principalJson(await accounts.get('USER', params.id)),
      { ...admin, ...operation({ operationId: 'getUser', summary: 'Get a user', tag: 'Accounts', ids: ['id'], responses: { 200: UserJson } }) })
    .patch('/users/:id', async ({ params, body, principal }) => principalJson(await accounts.updateUser(principal, params.id, body)),
      { ...admin, ...operation({ operationId: 'updateUser', summary: 'Update a user (roles, platform access, status)', tag: 'Accounts', ids: ['id'], body: UserUpdate, responses: { 200: UserJson } }) })
    .post('/service-accounts', async ({ body, set, principal }) => {
      set.status = 201;
      return principalJson(await accounts.createServiceAccount(principal, body));
    }, { ...admin, ...operation({ operationId: 'createServiceAccount', summary: 'Create a service account', tag: 'Accounts', body: ServiceAccountCreate, responses: { 201: ServiceAccountJson } }) })
    .get('/service-accounts', ({ principal, request }) => lister.serviceAccounts(principal, new URL(request.url).search),
      { ...admin, ...operation({ operationId: 'listServiceAccounts', summary: 'List service accounts (list engine; records as GET /service-accounts/{id}; fields id, kind, name, roles, platformAccess, active, createdAt)', tag: 'Accounts', list: ServiceAccountProjection }) })
    .get('/service-accounts/:id', async ({ params }) => principalJson(await accounts.get('SERVICE_ACCOUNT', params.id)),
      { ...admin, ...operation({ operationId: 'getServiceAccount', summary: 'Get a service account', tag: 'Accounts', ids: ['id'], responses: { 200: ServiceAccountJson } }) })
    .patch('/service-accounts/:id', async ({ params, body, principal }) => principalJson(await accounts.updateServiceAccount(principal, params.id, body)),
      { ...admin, ...operation({ operationId: 'updateServiceAccount', summary: 'Update a service account (roles, platform access, active)', tag: 'Accounts', ids: ['id'], body: ServiceAccountUpdate, responses: { 200: ServiceAccountJson } }) })
    .post('/api-keys', async ({ body, set, principal }) => {
      refuseInsideExecution(principal);
      const created = await accounts.createKey(principal, body);
      set.status = 201;
      set.headers['cache-control'] = 'no-store'; // the secret is in the body (RFC 9111 §5.2.2.5)
      return { ...keyJson(created), key: created.key };
    }, { ...anyPrincipal, ...operation({ operationId: 'createApiKey', summary: 'Create an API key (shown once)', tag: 'Accounts', body: ApiKeyCreate, responses: { 201: ApiKeyCreatedJson }, errors: ['CONFLICT'] }) })
    .get('/api-keys', ({ query, principal, request }) => {
      const target = accounts.keyOwnerFor(principal, query.principalId);
      return lister.apiKeys(principal, target, new URL(request.url).search);
    }, { ...anyPrincipal, ...operation({ operationId: 'listApiKeys', summary: 'List active API keys (own, or any principal\'s for INSTANCE_ADMIN; list engine)', tag: 'Accounts', list: ApiKeyProjection, query: [{ name: 'principalId', description: 'Whose keys (INSTANCE_ADMIN only for another principal; default: the caller)', schema: { type: 'string', format: 'uuid' } }] }) })
    .delete('/api-keys/:id', async ({ params, principal, set }) => {
      await accounts.revokeKey(principal, params.id);
      set.status = 204;
    }, { ...anyPrincipal, ...operation({ operationId: 'revokeApiKey', summary: 'Revoke an API key', tag: 'Accounts', ids: ['id'], responses: { 204: 'Revoked' } }) })
    .post('/workspaces', async ({ body, set, principal }) => {
      const w = await accounts.createWorkspace(principal, body);
      set.status = 201;
      return { id: w.id, name: w.name, createdAt: w.createdAt.toISOString() };
    }, { ...admin, ...operation({ operationId: 'createWorkspace', summary: 'Create a workspace', tag: 'Accounts', body: WorkspaceCreate, responses: { 201: WorkspaceJson }, errors: ['CONFLICT'] }) })
    .get('/workspaces', ({ principal, request }) => lister.workspaces(principal, new URL(request.url).search), {
      ...anyPrincipal,
      ...operation({ operationId: 'listWorkspaces', summary: 'List visible workspaces (list engine)', tag: 'Accounts', list: WorkspaceProjection }),
    })
    .post('/groups', async ({ body, set, principal }) => {
      const g = await accounts.createGroup(principal, body);
      set.status = 201;
      return groupJson(g);
    }, { ...admin, ...operation({ operationId: 'createGroup', summary: 'Create a group (usable as an Agent owner)', tag: 'Accounts', body: GroupCreate, responses: { 201: GroupJson } }) })
    .get('/groups', ({ principal, request }) => lister.groups(principal, new URL(request.url).search),
      { ...admin, ...operation({ operationId: 'listGroups', summary: 'List groups with their memberIds (list engine; fields id, name, createdAt)', tag: 'Accounts', list: GroupProjection }) })
    .get('/me', ({ principal }) => principalJson(principal),
      { ...credentialOnly, ...operation({ operationId: 'getMe', summary: 'The authenticated principal', tag: 'Accounts', responses: { 200: PrincipalJson } }) })
    .post('/auth/token', async ({ body, principal, set, request }) => {
      refuseInsideExecution(principal);
      set.headers['cache-control'] = 'no-store'; // as an OAuth token response (RFC 6749 §5.1)
      const { ttlSeconds = 3600 } = body === undefined || body === NO_BODY ? {} : validBody(body, validators.tokenRequest);
      // Minted from an API key (directly, or from a token that was): revoking the key ends the token.
      const apiKeyId = await credentials.originKeyId(bearerTokenOf(request.headers.get('authorization')));
      const { token, expiresAt } = await jwt.mint(principal.id, ttlSeconds, apiKeyId === undefined ? {} : { [API_KEY_CLAIM]: apiKeyId });
      return { token, tokenType: 'Bearer', expiresAt: expiresAt.toISOString() };
    }, { ...credentialOnly, ...operation({ operationId: 'createToken', summary: 'Exchange a credential for a short-lived JWT', tag: 'Accounts', body: TokenRequest, responses: { 200: TokenJson } }) });
}
