// One origin's metrics (DESIGN §12): a prom-client registry of its own (never the global one: tests
// start several servers in one process, and in `npm start` each origin reports its own requests),
// the request histogram every origin has, and gauges read only when scraped.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RequestCounter, RequestHistogram } from './per-request.ts';

/** The `route` of a request no route template matched (or refused before matching: 401, 414). */
export const UNMATCHED_ROUTE = 'unmatched';

const CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

/**
 * The method as a label and in access lines: a standard one as it is, anything else `other` (Deno's
 * server takes any method token: each would be a new series, kept for good).
 */
export const methodLabel = (method: string): string => (METHODS.has(method) ? method : 'other');

/** `2xx` for 200…299, and so on. */
export const statusClass = (status: number): string => CLASSES[Math.floor(status / 100) - 1] ?? `${Math.floor(status / 100)}xx`;

/** Seconds: from a static answer (tens of µs) to a component near its deadline. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** One sample of a gauge read at scrape time: its label values (in labelNames order) and value. */
export type Sample = readonly [labels: Record<string, string>, value: number];

type RequestChild = ReturnType<RequestHistogram['child']>;

export class OriginMetrics {
  readonly registry = new Registry();
  private readonly requests: RequestHistogram;
  /** Label children by `route method status`. */
  private readonly requestChildren = new Map<string, RequestChild>();

  constructor() {
    this.requests = new RequestHistogram(
      'http_request_duration_seconds',
      'Time from a request to its response head, by route template, method and status class',
      ['route', 'method', 'status_class'],
      DURATION_BUCKETS,
      this.registry,
    );
  }

  /** Counts one answered request; `route` is the template (UNMATCHED_ROUTE when none). */
  request(route: string, rawMethod: string, status: number, durationMs: number): void {
    const method = methodLabel(rawMethod);
    const key = `${route} ${method} ${status}`;
    let child = this.requestChildren.get(key);
    if (!child) {
      child = this.requests.child([route, method, statusClass(status)]);
      this.requestChildren.set(key, child);
    }
    child.observe(durationMs / 1000);
  }

  /** A counter counted on every request (per-request.ts): children by label values, kept by the caller. */
  requestCounter(name: string, help: string, labelNames: readonly string[]): RequestCounter {
    return new RequestCounter(name, help, labelNames, this.registry);
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  histogram<L extends string>(name: string, help: string, labelNames: readonly L[] = [], buckets = DURATION_BUCKETS): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }

  /**
   * A gauge whose samples `read` gives at scrape time. A read that fails leaves the gauge without
   * samples for that scrape (database_up or redis_up says why) instead of failing the scrape.
   */
  gauge(name: string, help: string, labelNames: readonly string[], read: () => readonly Sample[] | Promise<readonly Sample[]>): void {
    // Scrapes at the same time share one read (an open /metrics must not multiply database queries).
    let inFlight: Promise<readonly Sample[]> | undefined;
    const shared = (): Promise<readonly Sample[]> =>
      (inFlight ??= Promise.resolve()
        .then(read)
        .finally(() => (inFlight = undefined)));
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        let samples: readonly Sample[];
        try {
          samples = await shared();
        } catch {
          return;
        }
        for (const [labels, value] of samples) this.set(labels, value);
      },
    });
  }

  /** A counter whose total `read` gives at scrape time (a count kept elsewhere, since the start). */
  total(name: string, help: string, read: () => number): void {
    new Counter({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  }

  /** The exposition text (Prometheus text format 0.0.4) and its content type. */
  async scrape(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
