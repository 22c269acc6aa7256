// The runtime origin's fetch handler: the request target's length, health and readiness, then every
// request is an invocation.
import { operationId, problemResponse, RUNTIME_TARGET_LIMIT, targetTooLong, uriTooLong } from '../src/core/http/index.ts';
import { splitUrl, type Invoker, type RequestTimeouts } from './invoke.ts';

export interface RuntimeReadiness {
  ready: boolean;
  checks: Record<string, unknown>;
}

const health = (status: number, body: unknown, oid: string) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'x-svc-oid': oid } });

export function runtimeFetch(invoker: Invoker, readiness: () => Promise<RuntimeReadiness>) {
  const readyz = async (oid: string): Promise<Response> => {
    const { ready, checks } = await readiness();
    return health(ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', checks }, oid);
  };
  // Not async: an invocation answered without waiting returns its Response, not a promise.
  return (request: Request, server?: RequestTimeouts): Response | Promise<Response> => {
    const oid = operationId(request.headers.get('x-svc-oid'));
    // Read once and handed on: the length check is one comparison on it.
    const url = request.url;
    if (targetTooLong(url, RUNTIME_TARGET_LIMIT)) return problemResponse(uriTooLong(RUNTIME_TARGET_LIMIT), oid);
    // HEAD as GET (the server sends no body), as on the control plane.
    if (request.method === 'GET' || request.method === 'HEAD') {
      const { pathname } = splitUrl(url);
      if (pathname === '/healthz') return health(200, { status: 'ok' }, oid);
      if (pathname === '/readyz') return readyz(oid);
    }
    return invoker.handle(request, oid, server, url);
  };
}
