// Prometheus metrics of an origin (DESIGN §12): its registry and request histogram, gauges read at
// scrape time, and the GET /metrics responder both origins serve.

export { methodLabel, OriginMetrics, statusClass, UNMATCHED_ROUTE } from './metrics.ts';
export { METRICS_PATH, metricsResponder } from './scrape.ts';
