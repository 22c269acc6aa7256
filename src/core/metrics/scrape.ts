// GET /metrics as both origins answer it: the origin's registry in Prometheus text, open like the
// health routes, or behind METRICS_TOKEN (bearer) when one is configured.
import { timingSafeEqual } from 'node:crypto';
import { platform } from '../platform/index.ts';
import { ProblemError, problemResponse } from '../http/index.ts';
import type { OriginMetrics } from './metrics.ts';

export const METRICS_PATH = '/metrics';

const BEARER = /^bearer +(\S+) *$/i;

/** Answers a scrape of `metrics`; with `token`, only a request bearing it (compared in constant time). */
export function metricsResponder(metrics: OriginMetrics, token: string | undefined): (request: Request, oid: string) => Promise<Response> {
  const expected = token === undefined ? null : Buffer.from(platform.sha256Hex(token), 'hex');
  const allowed = (authorization: string | null): boolean => {
    if (expected === null) return true;
    const presented = authorization ? BEARER.exec(authorization)?.[1] : undefined;
    return presented !== undefined && timingSafeEqual(Buffer.from(platform.sha256Hex(presented), 'hex'), expected);
  };
  return async (request, oid) => {
    if (!allowed(request.headers.get('authorization'))) {
      return problemResponse(new ProblemError(401, 'UNAUTHORIZED', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>', { headers: { 'www-authenticate': 'Bearer' } }), oid);
    }
    const { body, contentType } = await metrics.scrape();
    return new Response(body, { headers: { 'content-type': contentType, 'cache-control': 'no-store', 'x-svc-oid': oid } });
  };
}
