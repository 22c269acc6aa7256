// A port bound before the server behind it exists: with PORT=0 the derived origins (BASE_URL,
// ENDPOINT_RUNTIME_URL) must name the port really bound, and the platform is built from them. Until
// a handler is set, requests are answered 503 SERVICE_UNAVAILABLE.
import { platform, type FetchHandler, type HttpServer } from '../platform/index.ts';
import { SERVER_BODY_CAP } from './body.ts';
import { operationId } from './oid.ts';
import { ProblemError, problemResponse } from './problem.ts';

export interface Listener {
  server: HttpServer;
  port: number;
  /** From now on every request goes to `fetch`. */
  handle(fetch: FetchHandler): void;
}

export function listen(port: number): Listener {
  let handler: FetchHandler | null = null;
  const server = platform.serve({
    port,
    hostname: '0.0.0.0',
    // Body limits are ours to enforce (413 problem+json with x-svc-oid), not the platform's.
    maxRequestBodySize: SERVER_BODY_CAP,
    fetch: (request, s) =>
      handler
        ? handler(request, s)
        : problemResponse(new ProblemError(503, 'SERVICE_UNAVAILABLE', 'The server is starting; retry shortly', { headers: { 'retry-after': '1' } }), operationId(request.headers.get('x-svc-oid'))),
  });
  return {
    server,
    port: server.port ?? port,
    handle: (fetch) => {
      handler = fetch;
    },
  };
}
