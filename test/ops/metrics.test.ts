// GET /metrics on both origins of `npm start` (a child process, over HTTP), as Prometheus scrapes
// it: the exposition parses, the metrics of DESIGN §12 are there with their labels, route labels
// are templates and never raw paths, requests and invocations count, and METRICS_TOKEN is enforced.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startServer, type Server } from '../blackbox/server.ts';
import { parseExposition, sample, type Exposition } from './prometheus.ts';

const scrape = async (origin: string, headers: Record<string, string> = {}): Promise<Exposition> => {
  const r = await fetch(`${origin}/metrics`, { headers });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toStartWith('text/plain; version=0.0.4');
  return parseExposition(await r.text());
};

const until = async <T>(read: () => Promise<T>, ok: (value: T) => boolean, ms = 10_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await Bun.sleep(100);
  }
};

describe('open /metrics (no METRICS_TOKEN)', () => {
  let s: Server;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s?.stop());

  test('both origins answer Prometheus text without a credential; every sample belongs to a family with HELP and TYPE', async () => {
    for (const origin of [s.cp, s.runtime]) {
      const m = await scrape(origin);
      expect(m.samples.length).toBeGreaterThan(5);
      for (const x of m.samples) expect(m.types.has(x.family)).toBe(true);
      // HEAD answers alike, without the body.
      const head = await fetch(`${origin}/metrics`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
    }
  });

  test('control plane: a request is counted under its route template, never its raw path; a miss under "unmatched"', async () => {
    const id = crypto.randomUUID();
    const before = await scrape(s.cp);
    const labels = { route: '/api/v1/agents/:agentId', method: 'GET', status_class: '4xx' };
    expect((await s.api('GET', `/agents/${id}`)).status).toBe(404);
    expect((await s.api('GET', '/no-such-route')).status).toBe(404);
    const after = await scrape(s.cp);
    expect(sample(after, 'http_request_duration_seconds_count', labels)).toBe((sample(before, 'http_request_duration_seconds_count', labels) ?? 0) + 1);
    expect(after.types.get('http_request_duration_seconds')).toBe('histogram');
    expect(sample(after, 'http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'http_request_duration_seconds_count', { route: 'unmatched', method: 'GET', status_class: '4xx' })).toBeGreaterThanOrEqual(1);
    const routes = new Set(after.samples.map((x) => x.labels.route).filter((r) => r !== undefined));
    expect([...routes].some((r) => r!.includes(id) || r!.includes('no-such-route'))).toBe(false);
    expect(routes.has('/api/v1/me') || routes.has('/api/v1/api-keys') || routes.has('/api/v1/agents/:agentId')).toBe(true);
  });

  test('runtime: an invocation increments endpoint_invocations_total and the histogram under the Endpoint\'s route template', async () => {
    const c = await s.api('POST', '/components', { name: 'metrics-echo', kind: 'lowcode', elements: [{ name: 'r', code: 'return api.input().params.id', visible: true }] });
    expect(c.status).toBe(201);
    const e = await s.api('POST', '/endpoints', { name: 'metered', method: 'GET', path: '/metered/:id', componentId: c.body.id, popResult: 'r' });
    expect(e.status).toBe(201);
    expect((await s.api('POST', `/endpoints/${e.body.id}/activate`)).status).toBe(200);
    const invoke = () => s.invoke('GET', '/metered/raw-value-17');
    await until(invoke, (r) => r.status === 200);
    const before = await scrape(s.runtime);
    const ok = { endpoint_id: e.body.id, status_class: '2xx' };
    const request = { route: '/metered/:id', method: 'GET', status_class: '2xx' };
    expect((await invoke()).status).toBe(200);
    const after = await scrape(s.runtime);
    expect(after.types.get('endpoint_invocations_total')).toBe('counter');
    expect(sample(after, 'endpoint_invocations_total', ok)).toBe((sample(before, 'endpoint_invocations_total', ok) ?? 0) + 1);
    expect(sample(after, 'http_request_duration_seconds_count', request)).toBe((sample(before, 'http_request_duration_seconds_count', request) ?? 0) + 1);
    // A 401 and a path no Endpoint serves are counted, as "unmatched" (the raw path never a label).
    expect((await s.invoke('GET', '/metered/x', undefined, null)).status).toBe(401);
    expect((await s.invoke('GET', '/nothing-here/42')).status).toBe(404);
    const last = await scrape(s.runtime);
    expect(sample(last, 'http_request_duration_seconds_count', { route: 'unmatched', method: 'GET', status_class: '4xx' })).toBeGreaterThanOrEqual(2);
    expect(last.samples.some((x) => Object.values(x.labels).some((v) => v.includes('raw-value-17') || v.includes('nothing-here')))).toBe(false);
  });

  test('runtime: the index, the database and the executor', async () => {
    const m = await scrape(s.runtime);
    expect(sample(m, 'index_version', {})).toBeGreaterThanOrEqual(0);
    expect(sample(m, 'index_age_seconds', {})).toBeGreaterThanOrEqual(0);
    expect(sample(m, 'database_up', {})).toBe(1);
    expect(sample(m, 'executor_hosts', { state: 'warm' })).toBeGreaterThanOrEqual(0);
    expect(sample(m, 'executor_hosts', { state: 'busy' })).toBeGreaterThanOrEqual(0);
    expect((sample(m, 'executor_hosts', { state: 'warm' }) ?? 0) + (sample(m, 'executor_hosts', { state: 'busy' }) ?? 0)).toBeGreaterThanOrEqual(1);
    expect(sample(m, 'executor_workers', {})).toBeGreaterThanOrEqual(0);
    expect(m.types.get('executor_hosts_replaced_total')).toBe('counter');
    expect(sample(m, 'executor_hosts_replaced_total', {})).toBe(0);
    expect(sample(m, 'executor_hosts', { state: 'replaced' })).toBe(0);
    // No Redis configured: no redis_up rather than a made-up value.
    expect(m.types.has('redis_up')).toBe(false);
  });

  test('control plane: the run engine (runs by status, queue, pending approvals, ticks and tool calls) and the database', async () => {
    const before = await scrape(s.cp);
    for (const status of ['queued', 'running', 'waiting_approval', 'cancelling', 'completed', 'failed', 'cancelled', 'timed_out']) expect(sample(before, 'agent_runs', { status })).toBeGreaterThanOrEqual(0);
    expect(sample(before, 'agent_run_queue_depth', {})).toBeGreaterThanOrEqual(0);
    expect(sample(before, 'agent_run_pending_approvals', {})).toBe(0);
    expect(sample(before, 'database_up', {})).toBe(1);

    const agent = await s.api('POST', '/agents', { name: 'metered', config: { model: 'scripted', maxTicks: 20 } });
    expect(agent.status).toBe(201);
    const run = await s.api('POST', `/agents/${agent.body.id}/runs`, { input: { script: [{ say: 'hi' }, { tools: [{ name: 'nowhere', args: {} }] }, { finish: { answer: 42 } }] } });
    expect(run.status).toBe(201);
    const done = await until(() => s.api('GET', `/agents/runs/${run.body.id}`), (r) => r.body.status === 'completed');
    expect(done.body.status).toBe('completed');
    const after = await scrape(s.cp);
    expect(sample(after, 'agent_runs', { status: 'completed' })).toBe((sample(before, 'agent_runs', { status: 'completed' }) ?? 0) + 1);
    const ticks = (m: Exposition) => sample(m, 'agent_run_ticks_total', { outcome: 'completed' }) ?? 0;
    expect(ticks(after) - ticks(before)).toBe(3);
    expect(sample(after, 'agent_run_tick_duration_seconds_count', {})).toBeGreaterThanOrEqual(3);
    expect(sample(after, 'agent_run_tool_calls_total', { outcome: 'failed' })).toBe(1); // no tool "nowhere": UNKNOWN_TOOL
    expect(sample(after, 'agent_run_tool_call_duration_seconds_count', {})).toBe(1);
    expect(after.types.get('agent_run_tick_duration_seconds')).toBe('histogram');
    // A run the model fails ({fail}) counts a failed tick, and a failed run.
    const failing = await s.api('POST', `/agents/${agent.body.id}/runs`, { input: { script: [{ fail: 'no' }] } });
    expect((await until(() => s.api('GET', `/agents/runs/${failing.body.id}`), (r) => r.body.status === 'failed')).body.status).toBe('failed');
    const last = await scrape(s.cp);
    expect(sample(last, 'agent_run_ticks_total', { outcome: 'failed' })).toBe((sample(after, 'agent_run_ticks_total', { outcome: 'failed' }) ?? 0) + 1);
    expect(sample(last, 'agent_runs', { status: 'failed' })).toBe((sample(after, 'agent_runs', { status: 'failed' }) ?? 0) + 1);
  });

  test('/metrics is reserved on the runtime origin: an Endpoint cannot take the path', async () => {
    const e = await s.api('POST', '/endpoints', { name: 'shadow', method: 'GET', path: '/metrics', staticResponse: { status: 200, body: {} } });
    expect(e.status).toBe(422);
    expect(JSON.stringify(e.body.errors)).toContain('/metrics');
  });
});

describe('METRICS_TOKEN', () => {
  const TOKEN = 'metrics-token-0123456789abcdef';
  let s: Server;
  beforeAll(async () => {
    s = await startServer({ METRICS_TOKEN: TOKEN });
  });
  afterAll(() => s?.stop());

  test('both origins answer 401 problem+json without the token or with another, and the metrics with it; health stays open', async () => {
    for (const origin of [s.cp, s.runtime]) {
      for (const headers of [{}, { authorization: 'Bearer not-the-metrics-token-at-all' }, { authorization: `Basic ${btoa(`x:${TOKEN}`)}` }] as Record<string, string>[]) {
        const r = await fetch(`${origin}/metrics`, { headers });
        expect(r.status).toBe(401);
        expect(r.headers.get('content-type')).toStartWith('application/problem+json');
        expect(r.headers.get('www-authenticate')).toBe('Bearer');
        const body = (await r.json()) as { code: string; oid: string };
        expect(body.code).toBe('UNAUTHORIZED');
        expect(body.oid).toBe(r.headers.get('x-svc-oid')!);
      }
      const m = await scrape(origin, { authorization: `Bearer ${TOKEN}` });
      expect(sample(m, 'database_up', {})).toBe(1);
      expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    }
    // The platform's own credentials are not the metrics token.
    expect((await fetch(`${s.cp}/metrics`, { headers: { authorization: 'Bearer sk-blackbox-admin-key-0123456789abcdefgh' } })).status).toBe(401);
    expect(s.log()).not.toContain(TOKEN);
  });
});
