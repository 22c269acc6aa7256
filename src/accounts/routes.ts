// HTTP routes of the accounts surface: /users, /service-accounts, /api-keys, /workspaces, /groups, /me, /auth/token.
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
    }, { ...admin, ...operation({ summary: 'Create a user', tag: 'Accounts', body: UserCreate, responses: { 201: 'The user' }, errors: [409] }) })
    .get('/users', ({ principal, request }) => lister.users(principal, new URL(request.url).search),
      { ...admin, ...operation({ summary: 'List users (list engine; records as GET /users/{id}; fields id, kind, name, email, roles, platformAccess, status, createdAt)', tag: 'Accounts', list: true }) })
    .get('/users/:id', async ({ params }) => principalJson(await accounts.get('USER', params.id)),
      { ...admin, ...operation({ summary: 'Get a user', tag: 'Accounts' }) })
    .patch('/users/:id', async ({ params, body, principal }) => principalJson(await accounts.updateUser(principal, params.id, body)),
      { ...admin, ...operation({ summary: 'Update a user (roles, platform access, status)', tag: 'Accounts', body: UserUpdate }) })
    .post('/service-accounts', async ({ body, set, principal }) => {
      set.status = 201;
      return principalJson(await accounts.createServiceAccount(principal, body));
    }, { ...admin, ...operation({ summary: 'Create a service account', tag: 'Accounts', body: ServiceAccountCreate, responses: { 201: 'The service account' } }) })
    .get('/service-accounts', ({ principal, request }) => lister.serviceAccounts(principal, new URL(request.url).search),
      { ...admin, ...operation({ summary: 'List service accounts (list engine; records as GET /service-accounts/{id}; fields id, kind, name, roles, platformAccess, active, createdAt)', tag: 'Accounts', list: true }) })
    .get('/service-accounts/:id', async ({ params }) => principalJson(await accounts.get('SERVICE_ACCOUNT', params.id)),
      { ...admin, ...operation({ summary: 'Get a service account', tag: 'Accounts' }) })
    .patch('/service-accounts/:id', async ({ params, body, principal }) => principalJson(await accounts.updateServiceAccount(principal, params.id, body)),
      { ...admin, ...operation({ summary: 'Update a service account (roles, platform access, active)', tag: 'Accounts', body: ServiceAccountUpdate }) })
    .post('/api-keys', async ({ body, set, principal }) => {
      refuseInsideExecution(principal);
      const created = await accounts.createKey(principal, body);
      set.status = 201;
      set.headers['cache-control'] = 'no-store'; // the secret is in the body (RFC 9111 §5.2.2.5)
      return { ...keyJson(created), key: created.key };
    }, { ...anyPrincipal, ...operation({ summary: 'Create an API key (shown once)', tag: 'Accounts', body: ApiKeyCreate, responses: { 201: 'The key, with its secret' } }) })
    .get('/api-keys', ({ query, principal, request }) => {
      const target = accounts.keyOwnerFor(principal, query.principalId);
      return lister.apiKeys(principal, target, new URL(request.url).search);
    }, { ...anyPrincipal, ...operation({ summary: 'List active API keys (own, or any principal\'s for INSTANCE_ADMIN; list engine)', tag: 'Accounts', list: true, query: [{ name: 'principalId', description: 'Whose keys (INSTANCE_ADMIN only for another principal; default: the caller)', schema: { type: 'string', format: 'uuid' } }] }) })
    .delete('/api-keys/:id', async ({ params, principal, set }) => {
      await accounts.revokeKey(principal, params.id);
      set.status = 204;
    }, { ...anyPrincipal, ...operation({ summary: 'Revoke an API key', tag: 'Accounts', responses: { 204: 'Revoked' } }) })
    .post('/workspaces', async ({ body, set, principal }) => {
      const w = await accounts.createWorkspace(principal, body);
      set.status = 201;
      return { id: w.id, name: w.name, createdAt: w.createdAt.toISOString() };
    }, { ...admin, ...operation({ summary: 'Create a workspace', tag: 'Accounts', body: WorkspaceCreate, responses: { 201: 'The workspace' }, errors: [409] }) })
    .get('/workspaces', ({ principal, request }) => lister.workspaces(principal, new URL(request.url).search), {
      ...anyPrincipal,
      ...operation({ summary: 'List visible workspaces (list engine)', tag: 'Accounts', list: true }),
    })
    .post('/groups', async ({ body, set, principal }) => {
      const g = await accounts.createGroup(principal, body);
      set.status = 201;
      return groupJson(g);
    }, { ...admin, ...operation({ summary: 'Create a group (usable as an Agent owner)', tag: 'Accounts', body: GroupCreate, responses: { 201: 'The group' } }) })
    .get('/groups', ({ principal, request }) => lister.groups(principal, new URL(request.url).search),
      { ...admin, ...operation({ summary: 'List groups with their memberIds (list engine; fields id, name, createdAt)', tag: 'Accounts', list: true }) })
    .get('/me', ({ principal }) => principalJson(principal),
      { ...credentialOnly, ...operation({ summary: 'The authenticated principal', tag: 'Accounts' }) })
    .post('/auth/token', async ({ body, principal, set, request }) => {
      refuseInsideExecution(principal);
      set.headers['cache-control'] = 'no-store'; // as an OAuth token response (RFC 6749 §5.1)
      const { ttlSeconds = 3600 } = body === undefined || body === NO_BODY ? {} : validBody(body, validators.tokenRequest);
      // Minted from an API key (directly, or from a token that was): revoking the key ends the token.
      const apiKeyId = await credentials.originKeyId(bearerTokenOf(request.headers.get('authorization')));
      const { token, expiresAt } = await jwt.mint(principal.id, ttlSeconds, apiKeyId === undefined ? {} : { [API_KEY_CLAIM]: apiKeyId });
      return { token, tokenType: 'Bearer', expiresAt: expiresAt.toISOString() };
    }, { ...credentialOnly, ...operation({ summary: 'Exchange a credential for a short-lived JWT', tag: 'Accounts', body: TokenRequest }) });
}
