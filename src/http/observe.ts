// Every control-plane request, however it ends, is counted (http_request_duration_seconds, by the
// route template Elysia matched) and gets one access line at info; every line written while it is
// served carries its oid (the logger's request context).
import type { Logger } from '../core/index.ts';
import { methodLabel, type OriginMetrics, UNMATCHED_ROUTE } from '../core/metrics/index.ts';
import { oidOf, routeOf } from './request-notes.ts';

/** Wraps the application's `handle`; the duration is to the response head (a stream goes on after it). */
export function observeRequests(handle: (request: Request) => Promise<Response>, metrics: OriginMetrics, log: Logger): (request: Request) => Promise<Response> {
  return async (request) => {
    const started = performance.now();
    const oid = oidOf(request);
    const response = await log.within({ oid }, () => handle(request));
    const durationMs = performance.now() - started;
    const route = routeOf(request) ?? UNMATCHED_ROUTE;
    metrics.request(route, request.method, response.status, durationMs);
    log.access({ method: methodLabel(request.method), route, status: response.status, durationMs: Math.round(durationMs * 1000) / 1000, oid });
    return response;
  };
}
