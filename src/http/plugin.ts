// The control plane's HTTP conventions as one Elysia plugin: x-svc-oid on every response, the
// request target's length limit (414), JSON-only bodies, problem+json for every error, and the
// `auth` macro that resolves the principal once per request and checks the roles a route declares.
import { Elysia } from 'elysia';
import { bearer } from '@elysiajs/bearer';
import { isUuid } from '../core/lib/index.ts';
import { type CredentialResolver, hasAnyRole, type Principal, type Role } from '../core/identity/index.ts';
import {
  readJsonBody,
  ProblemError,
  databaseUnavailable,
  problemResponse,
  CONTROL_PLANE_TARGET_LIMIT,
  targetTooLong,
  uriTooLong,
} from '../core/http/index.ts';
import type { AllowedMethods } from './allowed-methods.ts';
import { noteRoute, oidOf } from './request-notes.ts';
import { isDatabaseUnavailable } from '../core/db/index.ts';

export interface AuthRequirement {
  /** Any one of these roles (INSTANCE_ADMIN always passes). Empty: any authenticated principal. */
  roles?: readonly Role[];
  /** Control-plane calls need platform access (DESIGN §2), except /me and /auth/token. */
  platformAccess?: boolean;
}

export interface HttpLogger {
  error(message: string, error: unknown): void;
}

const BEARER = /^bearer +(\S+) *$/i;

/** The bearer token of an Authorization header; the scheme name is case-insensitive (RFC 9110 §11.1). */
export const bearerTokenOf = (authorization: string | null | undefined): string | undefined =>
  authorization ? BEARER.exec(authorization)?.[1] : undefined;

/**
 * The request's credential: the Authorization header's bearer token, and nothing else. The token
 * @elysiajs/bearer derives is used when the header is exactly `Bearer <token>`; its prefix match
 * also takes `Bearer:<key>` or `Bearer  <key>` (a space left in the token) and, without a header,
 * falls back to a query parameter, so anything but that exact form is read by our own parse.
 */
function tokenOf(authorization: string | null, fromPlugin: string | undefined): string | undefined {
  if (authorization === null) return undefined;
  if (fromPlugin && !/\s/.test(fromPlugin) && authorization === `Bearer ${fromPlugin}`) return fromPlugin;
  return bearerTokenOf(authorization);
}

/**
 * The conventions every route family uses. `routes.allowed` is set once the application is built
 * (its routes are known only then): a path served with other methods answers 405, not 404.
 */
export function httpConventions(credentials: CredentialResolver, log: HttpLogger, routes: { allowed?: AllowedMethods } = {}) {
  // One authentication per request, started by whichever comes first: the body parser (so a
  // request without a valid credential is 401 before its body is even read) or the auth macro.
  const principals = new WeakMap<Request, Promise<Principal>>();
  const authenticated = (request: Request, fromPlugin?: string): Promise<Principal> => {
    let principal = principals.get(request);
    if (!principal) {
      principal = credentials.authenticate(tokenOf(request.headers.get('authorization'), fromPlugin));
      principals.set(request, principal);
    }
    return principal;
  };
  return new Elysia({ name: 'http-conventions' })
    // Tokens are read from the Authorization header only (tokenOf): a credential in a URL ends up in logs.
    .use(bearer({ extract: { header: 'Bearer', query: '\u0000', body: '\u0000' } }))
    .onRequest(({ request, set }) => {
      const oid = oidOf(request);
      set.headers['x-svc-oid'] = oid;
      // Before routing and the credential, as Bun's own limit on the whole head would be.
      if (targetTooLong(request.url, CONTROL_PLANE_TARGET_LIMIT)) return problemResponse(uriTooLong(CONTROL_PLANE_TARGET_LIMIT), oid);
    })
    // Ids are made lower-case; an upper-case spelling of one names the same resource (as Postgres'
    // uuid type has it, and SQLite's text comparison would not).
    .onTransform({ as: 'global' }, ({ params, route, request }) => {
      noteRoute(request, route);
      if (!params) return;
      const all = params as Record<string, unknown>;
      for (const key in all) {
        const value = all[key];
        if (typeof value === 'string' && isUuid(value)) all[key] = value.toLowerCase();
      }
    })
    .onParse({ as: 'global' }, async ({ request }) => {
      // Every route that takes a body needs a credential.
      await authenticated(request);
      // NO_BODY, not undefined: undefined would hand the request on to Elysia's own JSON parser,
      // which on Deno refuses an empty body sent as application/json (400 where Bun gives none).
      return readJsonBody(request);
    })
    .onError({ as: 'global' }, async ({ code, error, request, route }) => {
      // A request refused while its body was read (401 before the body, 400 malformed JSON) never
      // reached onTransform: its route is noted here.
      noteRoute(request, route);
      // The credential comes first under /api/ for paths no route serves too: without a valid
      // one the answer is 401, so the API's routes cannot be mapped anonymously.
      if (code === 'NOT_FOUND') {
        const pathname = pathnameOf(request.url);
        if (pathname.startsWith('/api/')) {
          try {
            await authenticated(request);
          } catch (failure) {
            return problemResponse(toProblem('UNKNOWN', failure, log), oidOf(request));
          }
        }
        // A handler's own 404 (an unknown resource) is a ProblemError; only a route miss is not.
        const allowed = error instanceof ProblemError ? [] : routes.allowed?.(pathname) ?? [];
        if (allowed.length > 0) {
          const problem = new ProblemError(405, 'METHOD_NOT_ALLOWED', `${request.method} is not served here; allowed: ${allowed.join(', ')}`);
          return problemResponse(problem, oidOf(request), { allow: allowed.join(', ') });
        }
      }
      return problemResponse(toProblem(code, error, log), oidOf(request));
    })
    .macro({
      auth: (requirement: AuthRequirement) => ({
        async resolve({ request, bearer: token }: { request: Request; bearer: string | undefined }): Promise<{ principal: Principal }> {
          const principal = await authenticated(request, token);
          // A method the path's own routes do not serve, matched by a parameter route beside a
          // literal one (PATCH /endpoints/openapi against /endpoints/{endpointId}): 405, as for any path.
          const allowed = routes.allowed?.(pathnameOf(request.url));
          if (allowed && allowed.length > 0 && !allowed.includes(request.method)) {
            throw new ProblemError(405, 'METHOD_NOT_ALLOWED', `${request.method} is not served here; allowed: ${allowed.join(', ')}`, { headers: { allow: allowed.join(', ') } });
          }
          if ((requirement.platformAccess ?? true) && !principal.platformAccess) {
            throw new ProblemError(403, 'PLATFORM_ACCESS_DISABLED', 'Platform access is disabled for this principal');
          }
          const roles = requirement.roles ?? [];
          if (roles.length > 0 && !hasAnyRole(principal, roles)) {
            throw new ProblemError(403, 'FORBIDDEN', `One of the roles ${roles.join(', ')} is required`);
          }
          // The request's own view of the principal: the audit trail records its oid (and delegation).
          return { principal: { ...principal, context: { ...principal.context, oid: oidOf(request) } } };
        },
      }),
    });
}

/** The path of a request target; '' for one that is no URL (`CONNECT host:port` is authority-form). */
function pathnameOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

function toProblem(code: string | number, error: unknown, log: HttpLogger): ProblemError {
  if (error instanceof ProblemError) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof ProblemError) return cause;
  switch (code) {
    case 'NOT_FOUND':
      return new ProblemError(404, 'NOT_FOUND', 'No such route');
    case 'PARSE':
      return new ProblemError(400, 'MALFORMED_JSON', 'The request body could not be parsed');
    case 'VALIDATION':
      return new ProblemError(400, 'BAD_REQUEST', 'The request is invalid');
    case 'INVALID_COOKIE_SIGNATURE':
      return new ProblemError(400, 'BAD_REQUEST', 'Invalid cookie');
    default:
      if (isDatabaseUnavailable(error)) {
        log.error('database unavailable', error);
        return databaseUnavailable();
      }
      log.error('unhandled control-plane error', error);
      return new ProblemError(500, 'INTERNAL', 'An internal error occurred');
  }
}
