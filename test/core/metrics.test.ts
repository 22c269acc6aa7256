// The per-request metrics: a label set is one series however often it is counted, and a method a
// client makes up is `other` (Deno's server takes any method token: each would be a series for good).
import { expect, test } from 'bun:test';
import { OriginMetrics } from '../../src/core/metrics/index.ts';

test('made-up methods share the series "other"; one label set is one series, counted', async () => {
  const metrics = new OriginMetrics();
  for (let i = 0; i < 50; i++) metrics.request('unmatched', `FOO${i}`, 405, 1);
  metrics.request('/orders/:id', 'GET', 200, 2);
  metrics.request('/orders/:id', 'GET', 204, 4);
  const { body } = await metrics.scrape();
  expect(body).not.toContain('FOO');
  expect(body).toContain('http_request_duration_seconds_count{route="unmatched",method="other",status_class="4xx"} 50');
  expect(body).toContain('http_request_duration_seconds_count{route="/orders/:id",method="GET",status_class="2xx"} 2');
  expect(body).toContain('http_request_duration_seconds_sum{route="/orders/:id",method="GET",status_class="2xx"} 0.006');
  expect(body).toContain('http_request_duration_seconds_bucket{route="/orders/:id",method="GET",status_class="2xx",le="0.0025"} 1');
  expect(body).toContain('http_request_duration_seconds_bucket{route="/orders/:id",method="GET",status_class="2xx",le="+Inf"} 2');
  expect(body.match(/http_request_duration_seconds_count\{/g)).toHaveLength(2);
});
