// What the runtime tells about each request it answers (DESIGN §12): the access line at info and
// the request histogram, and for an invocation endpoint_invocations_total. On the request path:
// label children are kept per route and per Endpoint, and the line is built directly (Logger.access).
import type { Logger } from '../src/core/index.ts';
import { methodLabel, type OriginMetrics, statusClass, UNMATCHED_ROUTE } from '../src/core/metrics/index.ts';

type InvocationChild = { inc(): void };

export class RequestObserver {
  private readonly invocations;
  /** Label children by `endpointId status`. */
  private readonly invocationChildren = new Map<string, InvocationChild>();

  constructor(
    readonly metrics: OriginMetrics,
    private readonly log: Logger,
  ) {
    this.invocations = metrics.requestCounter('endpoint_invocations_total', 'Invocations of Endpoints, by Endpoint id and status class', ['endpoint_id', 'status_class']);
  }

  /** A request answered without an invocation: health, readiness, metrics, or refused before an Endpoint matched. */
  answered(method: string, route: string | undefined, status: number, started: number, oid: string): void {
    const durationMs = performance.now() - started;
    const template = route ?? UNMATCHED_ROUTE;
    this.metrics.request(template, method, status, durationMs);
    this.log.access({ method: methodLabel(method), route: template, status, durationMs: round(durationMs), oid });
  }

  /** An invocation of the Endpoint `endpointId` at its route template `route`, answered `status`. */
  invoked(method: string, route: string, status: number, durationMs: number, oid: string, endpointId: string, executionId: string): void {
    this.metrics.request(route, method, status, durationMs);
    const key = `${endpointId} ${status}`;
    let child = this.invocationChildren.get(key);
    if (!child) {
      child = this.invocations.child([endpointId, statusClass(status)]);
      this.invocationChildren.set(key, child);
    }
    child.inc();
    this.log.access({ method: methodLabel(method), route, status, durationMs: round(durationMs), oid, endpointId, executionId });
  }
}

/** Milliseconds to the µs: what a reader of the line can use, not the float's 15 digits. */
const round = (ms: number): number => Math.round(ms * 1000) / 1000;
