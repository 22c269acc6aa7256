// The runtime origin's fixed surface: health, readiness and the 404 for everything unrouted.
import { operationId } from '../src/http/oid.ts';
import { ProblemError, problemResponse } from '../src/http/problem.ts';

export interface RuntimeReadiness {
  ready: boolean;
  checks: Record<string, unknown>;
}

const json = (status: number, body: unknown, oid: string) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'x-svc-oid': oid } });

/** Serves /healthz and /readyz; everything else is a 404 problem until Endpoints are routed. */
export function createRuntimeShell(readiness: () => Promise<RuntimeReadiness>) {
  return async (request: Request): Promise<Response> => {
    const oid = operationId(request.headers.get('x-svc-oid'));
    const { pathname } = new URL(request.url);
    if (request.method === 'GET' && pathname === '/healthz') return json(200, { status: 'ok' }, oid);
    if (request.method === 'GET' && pathname === '/readyz') {
      const { ready, checks } = await readiness();
      return json(ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', checks }, oid);
    }
    return problemResponse(new ProblemError(404, 'NOT_FOUND', `No active Endpoint matches ${request.method} ${pathname}`), oid);
  };
}
