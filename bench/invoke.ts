// Invocation bench: requests/s and p50/p99 latency under load from wrk (a separate process), in one
// run, each as a ratio to raw Bun.serve returning a constant JSON (the ceiling) measured in the
// same rounds: an Elysia handler doing the same work, the ceiling plus the headers every invocation
// must read and write (the floor no implementation can beat), the same plus a batched round trip
// to a Worker (the floor of a component path), and this platform (both origins in one
// process, as `npm start`) for a static-response Endpoint, a lowcode component with popResult, and
// a guarded POST with a path param (inline guard + lowcode), under COMPONENT_ISOLATION=process
// (the default) and worker; with `--postgres[=URL]` also on Postgres (process isolation, a
// database of its own, dropped at the end), the scale-out path. Every server runs in its own
// process. Auth: an `sk-` API key of a user holding ENDPOINT_INVOKE, sent to every server alike.
//
//   node_modules/.bin/bun bench/invoke.ts [--seconds=5] [--connections=64] [--rounds=5] [--isolation=process,worker] [--postgres[=URL]]
//
// Needs `wrk` on PATH (Debian: apt-get install -y wrk).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { median } from './lib/timing.ts';
import { perSecond, table } from './lib/table.ts';
import { controlPlane } from './lib/control-plane.ts';
import { loadAverage, npmStartEnv, settle, startServer, treeCpuMicros, type ChildServer } from './lib/process.ts';
import { requireWrk, wrk, type WrkResult } from './lib/wrk.ts';

const CONSTANT = '{"ok":true}';

// ---- server roles (each started as its own process) ----------------------------------------

function serveRaw(): void {
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: () => new Response(CONSTANT, { headers: { 'content-type': 'application/json' } }),
  });
  console.log(`READY ${JSON.stringify({ port: server.port })}`);
}

/**
 * The ceiling plus only what the spec asks of every invocation's HTTP exchange, no platform logic:
 * read the credential and an incoming x-svc-oid, answer with x-svc-oid and a new x-execution-id.
 * The gap between it and the ceiling is what no implementation on this server can win back.
 */
function serveFloor(): void {
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (request) => {
      const credential = request.headers.get('authorization');
      const oid = request.headers.get('x-svc-oid') ?? crypto.randomUUID();
      if (!credential || !request.url) return new Response(null, { status: 401 });
      return new Response(CONSTANT, { headers: { 'content-type': 'application/json', 'x-svc-oid': oid, 'x-execution-id': crypto.randomUUID() } });
    },
  });
  console.log(`READY ${JSON.stringify({ port: server.port })}`);
}

/**
 * The floor plus the least a component path must do: a round trip to a Worker (requests batched
 * per event-loop turn, as the executor batches them; the Worker echoes the constant back) and a
 * response sent once it is back. No JSON, no component, no audit.
 */
function serveWorkerFloor(): void {
  const worker = new Worker(URL.createObjectURL(new Blob(['self.onmessage = (e) => postMessage(e.data);'], { type: 'text/javascript' })));
  let outbox: string[] = [];
  let waiting: ((line: string) => void)[] = [];
  const flush = () => {
    worker.postMessage(outbox.join('\n'));
    outbox = [];
  };
  const replies: ((line: string) => void)[][] = [];
  worker.onmessage = (event: MessageEvent<string>) => {
    const lines = event.data.split('\n');
    const resolvers = replies.shift()!;
    for (let i = 0; i < resolvers.length; i++) resolvers[i]!(lines[i]!);
  };
  const send = () => {
    replies.push(waiting);
    waiting = [];
    flush();
  };
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (request) => {
      const credential = request.headers.get('authorization');
      const oid = request.headers.get('x-svc-oid') ?? crypto.randomUUID();
      if (!credential || !request.url) return new Response(null, { status: 401 });
      const executionId = crypto.randomUUID();
      return new Promise<Response>((resolve) => {
        waiting.push((line) => resolve(new Response(line, { headers: { 'content-type': 'application/json', 'x-svc-oid': oid, 'x-execution-id': executionId } })));
        if (outbox.push(CONSTANT) === 1) setImmediate(send);
      });
    },
  });
  console.log(`READY ${JSON.stringify({ port: server.port })}`);
}

async function serveElysia(): Promise<void> {
  const { Elysia } = await import('elysia');
  // The same work as raw: one route answering a constant JSON object (Elysia serializes it).
  const app = new Elysia().get('/static', () => ({ ok: true })).listen({ port: 0, hostname: '127.0.0.1' });
  console.log(`READY ${JSON.stringify({ port: app.server!.port })}`);
}

// ---- the platform under test ----------------------------------------------------------------

const ADMIN_KEY = 'sk-bench-admin-key-0123456789abcdefghijklmn';
const ORDER = { name: 'Widget deluxe', kind: 'retail', qty: 3 };

interface Platform {
  server: ChildServer;
  runtimeUrl: string;
  invokeKey: string;
  dataDir: string;
}

async function startPlatform(isolation: 'process' | 'worker', databaseUrl?: string): Promise<Platform> {
  const dataDir = mkdtempSync(join(tmpdir(), `bench-invoke-${isolation}-`));
  const env = {
    ...process.env,
    ...npmStartEnv(),
    DATABASE_URL: databaseUrl ?? `sqlite:${join(dataDir, 'platform.db')}`, // the embedded default is a SQLite file
    DATA_DIR: dataDir,
    PLATFORM_ADMIN_API_KEY: ADMIN_KEY,
    COMPONENT_ISOLATION: isolation,
    // As users run it: an access line per request (DESIGN §12), written to a file as a supervisor would.
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    REDIS_URL: '',
  };
  const server = await startServer([join(import.meta.dir, 'lib/platform-server.ts')], env, undefined, join(dataDir, 'platform.log'));
  const control = `http://127.0.0.1:${server.ready.control}`;
  const api = controlPlane(control, ADMIN_KEY);
  const user = await api('POST', '/api/v1/users', { name: 'bench', email: 'bench@example.com', roles: ['ENDPOINT_INVOKE'], platformAccess: true });
  const key = await api('POST', '/api/v1/api-keys', { principalId: user.id, name: 'bench' });
  const endpoint = async (definition: Record<string, unknown>) => {
    const created = await api('POST', '/api/v1/endpoints', { name: `bench ${definition.path}`, ...definition });
    await api('POST', `/api/v1/endpoints/${created.id}/activate`);
  };
  // (c) no component, no executor hop
  await endpoint({ method: 'GET', path: '/static', staticResponse: { status: 200, body: { ok: true } } });
  // (d) the same constant from a lowcode component, one named result popped
  const hello = await api('POST', '/api/v1/components', { name: 'bench-hello', kind: 'lowcode', elements: [{ name: 'out', code: 'return { ok: true };' }] });
  await endpoint({ method: 'GET', path: '/hello', componentId: hello.id, popResult: 'out' });
  // (e) POST with a path param, an inline guard (enum/length/range, no pattern) and a component reading params and body
  const order = await api('POST', '/api/v1/components', {
    name: 'bench-order',
    kind: 'lowcode',
    elements: [{ name: 'order', code: 'const i = api.input(); return { id: i.params.orderId, qty: i.body.qty, ok: true };' }],
  });
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 64 },
      kind: { enum: ['retail', 'wholesale', 'internal'] },
      qty: { type: 'integer', minimum: 1, maximum: 1000 },
    },
    required: ['name', 'kind', 'qty'],
    additionalProperties: false,
  };
  await endpoint({
    method: 'POST',
    path: '/orders/:orderId',
    componentId: order.id,
    popResult: 'order',
    guard: { type: 'inline', schema },
    validationFailure: { status: 422, body: { error: 'invalid order' } },
  });
  return { server, runtimeUrl: `http://127.0.0.1:${server.ready.runtime}`, invokeKey: key.key as string, dataDir };
}

// ---- scenarios ----------------------------------------------------------------------------

interface Scenario {
  name: string;
  /** Which target it is held to: the ceiling itself, a reference, or the targets. */
  kind: 'ceiling' | 'reference' | 'static' | 'component';
  url: string;
  method: 'GET' | 'POST';
  body?: string;
  headers: Record<string, string>;
  expect: { status: number; body: unknown };
  pid: number;
}

/** Sends one request and checks status and body, so a bench never times error responses. */
async function check(s: Scenario): Promise<void> {
  const r = await fetch(s.url, { method: s.method, headers: s.headers, body: s.body });
  const body: unknown = await r.json();
  if (r.status !== s.expect.status || JSON.stringify(body) !== JSON.stringify(s.expect.body)) {
    throw new Error(`${s.name}: expected ${s.expect.status} ${JSON.stringify(s.expect.body)}, got ${r.status} ${JSON.stringify(body)}`);
  }
}

interface Sample extends WrkResult {
  cpuPerRequest: number;
}

async function measure(s: Scenario, seconds: number, connections: number, warmupSeconds: number): Promise<Sample> {
  const o = { connections, method: s.method, body: s.body, headers: s.headers };
  await wrk(s.url, { ...o, seconds: warmupSeconds });
  const cpu0 = await treeCpuMicros(s.pid);
  const r = await wrk(s.url, { ...o, seconds });
  const cpu = (await treeCpuMicros(s.pid)) - cpu0;
  if (r.non2xx > 0 || r.socketErrors > 0) console.error(`  ! ${s.name}: ${r.non2xx} non-2xx responses, ${r.socketErrors} socket errors`);
  return { ...r, cpuPerRequest: cpu / Math.max(1, r.requests) };
}

// ---- main ----------------------------------------------------------------------------------

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;

async function main(): Promise<void> {
  requireWrk();
  const seconds = Number(arg('seconds', '5'));
  const connections = Number(arg('connections', '64'));
  const rounds = Number(arg('rounds', '5'));
  const isolations = arg('isolation', 'process,worker').split(',').filter((i): i is 'process' | 'worker' => i === 'process' || i === 'worker');
  const postgresFlag = process.argv.find((a) => a === '--postgres' || a.startsWith('--postgres='));
  const postgresUrl = postgresFlag === undefined ? undefined : postgresFlag.includes('=') ? postgresFlag.slice('--postgres='.length) : 'postgres://postgres@127.0.0.1:5432/test';
  const loadBefore = await loadAverage();

  const self = import.meta.path;
  // Every server runs with the allocator settings `npm start` gives the platform, the ceiling too.
  const env = { ...process.env, ...npmStartEnv() };
  const raw = await startServer([self, 'serve-raw'], env);
  const elysia = await startServer([self, 'serve-elysia'], env);
  const floor = await startServer([self, 'serve-floor'], env);
  const workerFloor = await startServer([self, 'serve-worker-floor'], env);
  const platforms = new Map<string, Platform>();
  const servers: ChildServer[] = [raw, elysia, floor, workerFloor];
  const scenarios: Scenario[] = [];
  try {
    for (const isolation of isolations) {
      const p = await startPlatform(isolation);
      platforms.set(isolation, p);
      servers.push(p.server);
    }
    if (postgresUrl) {
      benchDatabase = await createBenchDatabase(postgresUrl);
      const p = await startPlatform('process', benchDatabase.url);
      platforms.set('postgres', p);
      servers.push(p.server);
    }
    // Every server gets the same credential header, so request sizes match.
    const someKey = platforms.values().next().value?.invokeKey ?? ADMIN_KEY;
    const auth = { authorization: `Bearer ${someKey}` };
    const ok = { status: 200, body: { ok: true } };
    scenarios.push(
      { name: 'raw Bun.serve (ceiling)', kind: 'ceiling', url: `http://127.0.0.1:${raw.ready.port}/static`, method: 'GET', headers: auth, expect: ok, pid: raw.pid },
      { name: 'Elysia handler', kind: 'reference', url: `http://127.0.0.1:${elysia.ready.port}/static`, method: 'GET', headers: auth, expect: ok, pid: elysia.pid },
      { name: 'raw + invocation headers (floor)', kind: 'reference', url: `http://127.0.0.1:${floor.ready.port}/static`, method: 'GET', headers: auth, expect: ok, pid: floor.pid },
      { name: 'floor + Worker round trip', kind: 'reference', url: `http://127.0.0.1:${workerFloor.ready.port}/static`, method: 'GET', headers: auth, expect: ok, pid: workerFloor.pid },
    );
    for (const [isolation, p] of platforms) {
      const headers = { authorization: `Bearer ${p.invokeKey}` };
      scenarios.push(
        { name: `${isolation}: static response`, kind: 'static', url: `${p.runtimeUrl}/static`, method: 'GET', headers, expect: ok, pid: p.server.pid },
        { name: `${isolation}: lowcode popResult`, kind: 'component', url: `${p.runtimeUrl}/hello`, method: 'GET', headers, expect: ok, pid: p.server.pid },
        {
          name: `${isolation}: guarded POST /orders/:id`,
          kind: 'component',
          url: `${p.runtimeUrl}/orders/A-1042`,
          method: 'POST',
          body: JSON.stringify(ORDER),
          headers: { ...headers, 'content-type': 'application/json' },
          expect: { status: 200, body: { id: 'A-1042', qty: 3, ok: true } },
          pid: p.server.pid,
        },
      );
    }
    for (const s of scenarios) await check(s);

    const samples = new Map<string, Sample[]>(scenarios.map((s) => [s.name, []]));
    /** For each scenario, the ceiling sample measured right before each of its own. */
    const ceilingOf = new Map<string, Sample[]>(scenarios.map((s) => [s.name, []]));
    const ceiling = scenarios[0]!;
    const started = performance.now();
    const run = async (s: Scenario, round: number, warmupSeconds: number): Promise<Sample> => {
      const sample = await measure(s, seconds, connections, warmupSeconds);
      samples.get(s.name)!.push(sample);
      // The platform writes audit and statistics in batches after the load: that work must not
      // land on the next scenario's clock, so wait until this server is idle again.
      const settledMs = await settle(s.pid);
      process.stderr.write(`  round ${round + 1}/${rounds} ${s.name}: ${sample.requestsPerSecond.toFixed(0)} req/s, p99 ${sample.p99.toFixed(2)} ms, busy ${(settledMs / 1000).toFixed(1)} s after the load\n`);
      return sample;
    };
    for (let round = 0; round < rounds; round++) {
      // Every scenario is measured right after a ceiling run and paired with it: this VM's speed
      // drifts by a third within minutes (the ceiling went 51k → 63k → 75k req/s over one run's
      // rounds), so a ceiling measured a minute earlier made the ratios swing with the drift. The
      // rest run in a rotated order so that slow drift hits all alike.
      const rest = scenarios.slice(1);
      const order = [...rest.slice(round % rest.length), ...rest.slice(0, round % rest.length)];
      for (const s of order) {
        const before = await run(ceiling, round, round === 0 && s === order[0] ? 2 : 1);
        ceilingOf.get(ceiling.name)!.push(before);
        await run(s, round, round === 0 ? 2 : 1);
        ceilingOf.get(s.name)!.push(before);
      }
    }
    const minutes = ((performance.now() - started) / 60_000).toFixed(1);
    const loadAfter = await loadAverage();

    const spread = (xs: number[], digits: number) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;
    const rows: string[][] = [];
    const ratios = new Map<string, { rps: number; p99: number }>();
    for (const s of scenarios) {
      const ss = samples.get(s.name)!;
      const paired = ceilingOf.get(s.name)!;
      const rpsRatio = ss.map((x, i) => x.requestsPerSecond / paired[i]!.requestsPerSecond);
      const p99Ratio = ss.map((x, i) => x.p99 / paired[i]!.p99);
      ratios.set(s.name, { rps: median(rpsRatio), p99: median(p99Ratio) });
      rows.push([
        s.name,
        perSecond(median(ss.map((x) => x.requestsPerSecond))),
        `${median(rpsRatio).toFixed(2)}× (${spread(rpsRatio, 2)})`,
        median(ss.map((x) => x.p50)).toFixed(2),
        `${median(ss.map((x) => x.p99)).toFixed(2)} (${spread(ss.map((x) => x.p99), 2)})`,
        `${median(p99Ratio).toFixed(2)}×`,
        median(ss.map((x) => x.cpuPerRequest)).toFixed(1),
      ]);
    }
    console.log(`Invocation: wrk -t1 -c${connections}, ${seconds} s × ${rounds} rounds (${minutes} min); medians over rounds, each ratio paired with the ceiling run measured just before it (range in brackets)`);
    console.log(`load average before ${loadBefore}, after ${loadAfter}; ${navigator.hardwareConcurrency} cores; Bun ${Bun.version}\n`);
    console.log(table(['server: scenario', 'req/s', '× ceiling req/s', 'p50 ms', 'p99 ms', '× ceiling p99', 'CPU µs/req'], rows));
    console.log('\n"CPU µs/req" is the server process tree (platform: with its executor hosts) per request.');
    for (const label of platforms.keys()) {
      const invocations = scenarios.filter((s) => s.name.startsWith(`${label}:`)).flatMap((s) => samples.get(s.name)!).reduce((n, x) => n + x.requests, 0);
      console.log(`${label}: ${invocations} invocations (warm-ups not counted), each one audit row in the platform's ${label === 'postgres' ? 'Postgres database' : 'SQLite file'} by the end of the run.`);
    }
    console.log('');

    const verdicts: string[][] = [];
    for (const s of scenarios) {
      if (s.kind === 'ceiling') continue;
      const r = ratios.get(s.name)!;
      if (s.kind === 'static') verdicts.push([s.name, 'throughput ≥ 0.80× ceiling', `${r.rps.toFixed(2)}×`, r.rps >= 0.8 ? 'PASS' : 'MISS']);
      if (s.kind === 'component') verdicts.push([s.name, 'throughput ≥ 0.50× ceiling', `${r.rps.toFixed(2)}×`, r.rps >= 0.5 ? 'PASS' : 'MISS']);
      const p99Target = s.kind === 'reference' ? 'p99 ≤ 3× ceiling (reference)' : 'p99 ≤ 3× ceiling p99';
      verdicts.push([s.name, p99Target, `${r.p99.toFixed(2)}×`, r.p99 <= 3 ? 'PASS' : 'MISS']);
    }
    console.log(table(['scenario', 'target (issue 5)', 'measured', 'verdict'], verdicts));
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    for (const p of platforms.values()) rmSync(p.dataDir, { recursive: true, force: true });
    await benchDatabase?.drop();
  }
}

let benchDatabase: { url: string; drop(): Promise<void> } | undefined;

/** A database of its own on the Postgres server at `url` (dropped at the end), so runs never share rows. */
async function createBenchDatabase(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `bench_invoke_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE "${name}"`);
  const own = new URL(url);
  own.pathname = `/${name}`;
  return {
    url: own.toString(),
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}

const role = process.argv[2];
if (role === 'serve-raw') serveRaw();
else if (role === 'serve-floor') serveFloor();
else if (role === 'serve-worker-floor') serveWorkerFloor();
else if (role === 'serve-elysia') await serveElysia();
else await main();
