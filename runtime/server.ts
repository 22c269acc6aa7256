// The runtime origin's fetch handler: the request target's length, health, readiness and metrics
// (answered before the route table: an Endpoint cannot take these paths), then every request is an
// invocation. Each request is counted and gets its access line (./observe.ts).
import { operationId, problemResponse, RUNTIME_TARGET_LIMIT, targetTooLong, uriTooLong } from '../src/core/http/index.ts';
import { METRICS_PATH } from '../src/core/metrics/index.ts';
import { splitUrl, type Invoker, type RequestTimeouts } from './invoke.ts';
import type { RequestObserver } from './observe.ts';

export interface RuntimeReadiness {
  ready: boolean;
  checks: Record<string, unknown>;
}

const health = (status: number, body: unknown, oid: string) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'x-svc-oid': oid } });

export interface RuntimeRoutes {
  invoker: Invoker;
  readiness: () => Promise<RuntimeReadiness>;
  /** GET /metrics (its token checked there). */
  metrics: (request: Request, oid: string) => Promise<Response>;
  observer: RequestObserver;
}

export function runtimeFetch({ invoker, readiness, metrics, observer }: RuntimeRoutes) {
  const readyz = async (oid: string): Promise<Response> => {
    const { ready, checks } = await readiness();
    return health(ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', checks }, oid);
  };
  const observed = async (request: Request, route: string, answer: Promise<Response>, started: number, oid: string): Promise<Response> => {
    const response = await answer;
    observer.answered(request.method, route, response.status, started, oid);
    return response;
  };
  // Not async: an invocation answered without waiting returns its Response, not a promise.
  return (request: Request, server?: RequestTimeouts): Response | Promise<Response> => {
    const started = performance.now();
    const oid = operationId(request.headers.get('x-svc-oid'));
    // Read once and handed on: the length check is one comparison on it.
    const url = request.url;
    if (targetTooLong(url, RUNTIME_TARGET_LIMIT)) {
      const response = problemResponse(uriTooLong(RUNTIME_TARGET_LIMIT), oid);
      observer.answered(request.method, undefined, response.status, started, oid);
      return response;
    }
    // HEAD as GET (the server sends no body), as on the control plane.
    if (request.method === 'GET' || request.method === 'HEAD') {
      const { pathname } = splitUrl(url);
      if (pathname === '/healthz') {
        const response = health(200, { status: 'ok' }, oid);
        observer.answered(request.method, pathname, 200, started, oid);
        return response;
      }
      if (pathname === '/readyz') return observed(request, pathname, readyz(oid), started, oid);
      if (pathname === METRICS_PATH) return observed(request, pathname, metrics(request, oid), started, oid);
    }
    return invoker.handle(request, oid, server, url, started);
  };
}
