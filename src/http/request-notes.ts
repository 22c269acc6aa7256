// What the control plane notes about a request on its way: its operation id (x-svc-oid, continued
// or made once) and the route template Elysia matched, for the access line and request metrics.
import { operationId } from '../core/http/index.ts';

const oids = new WeakMap<Request, string>();
const routes = new WeakMap<Request, string>();

/** The request's x-svc-oid: the valid incoming one, else one made at the first ask. */
export function oidOf(request: Request): string {
  let oid = oids.get(request);
  if (!oid) {
    oid = operationId(request.headers.get('x-svc-oid'));
    oids.set(request, oid);
  }
  return oid;
}

/** Notes the template of the route that matched (`/api/v1/agents/:agentId`); Elysia has none for a miss. */
export function noteRoute(request: Request, route: string | undefined): void {
  if (route) routes.set(request, route);
}

/** The route template noted for the request, if any matched. */
export const routeOf = (request: Request): string | undefined => routes.get(request);
