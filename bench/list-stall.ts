// List queries beside invocations (not a test). Run: node_modules/.bin/bun bench/list-stall.ts [--rows=1000000]
//
// The platform as `npm start` wires it (both origins in one process, SQLite file), with N
// invocation rows in its audit table (inserted straight into the file before the measurement, as
// a busy day of invocations leaves them). One client invokes a static Endpoint on the runtime one
// request at a time (a 5 ms pause between requests); meanwhile an administrator lists the audit
// trail with heavy queries (a group over every row, a sort no index serves, a count). Reported per
// query: its time, and the slowest and p99 invocation latency while it ran, against the same
// figures with no list query running (the baseline, measured in the same run).
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { controlPlane } from './lib/control-plane.ts';
import { npmStartEnv, startServer } from './lib/process.ts';
import { table } from './lib/table.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const ROWS = Number(arg('rows') ?? 1_000_000);
const ADMIN_KEY = 'sk-bench-admin-key-0123456789abcdefghijklmn';
const QUERIES: [string, string][] = [
  ['group by oid (every row)', 'groupBy=oid&fields=oid&limit=100'],
  ['sort by durationMs, oid (no index)', 'sort=-durationMs,oid&limit=100'],
  ['filter status = 200, count=true', `filter=${encodeURIComponent(JSON.stringify({ field: 'status', op: 'eq', value: 200 }))}&count=true&limit=10`],
  ['default page (index-backed)', 'limit=100'],
];

const dataDir = mkdtempSync(join(tmpdir(), 'bench-list-stall-'));
const file = join(dataDir, 'platform.db');
const server = await startServer([join(import.meta.dir, 'lib/platform-server.ts')], {
  ...process.env,
  ...npmStartEnv(),
  DATABASE_URL: `sqlite:${file}`,
  DATA_DIR: dataDir,
  PLATFORM_ADMIN_API_KEY: ADMIN_KEY,
  COMPONENT_ISOLATION: 'worker',
  LOG_LEVEL: 'warn',
  REDIS_URL: '',
});
const control = `http://127.0.0.1:${server.ready.control}`;
const runtime = `http://127.0.0.1:${server.ready.runtime}`;

const api = controlPlane(control, ADMIN_KEY);

try {
  const user = await api('POST', '/api/v1/users', { name: 'bench', email: 'bench@example.com', roles: ['ENDPOINT_INVOKE'], platformAccess: true });
  const { key } = await api('POST', '/api/v1/api-keys', { principalId: user.id, name: 'bench' });
  const endpoint = await api('POST', '/api/v1/endpoints', { name: 'static', method: 'GET', path: '/static', staticResponse: { status: 200, body: { ok: true } } });
  await api('POST', `/api/v1/endpoints/${endpoint.id}/activate`);

  // N invocation rows, as the writer stores them, through a second connection (WAL).
  const seeding = performance.now();
  const db = new Database(file);
  db.exec('PRAGMA busy_timeout = 5000');
  db.query(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
    INSERT INTO audit (id, at, kind, action, actor_id, resource_type, resource_id, workspace_id, status, duration_ms, oid, execution_id)
    SELECT lower(hex(randomblob(16))), ? - i, 'invocation', 'endpoint.invoke', ?, 'endpoint', ?, ?, 200 + (i % 3) * 100, i % 50,
           lower(hex(randomblob(8))), lower(hex(randomblob(16))) FROM n`).run(ROWS, Date.now(), user.id, endpoint.id, endpoint.workspaceId);
  db.close();
  console.log(`${ROWS} audit rows inserted in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

  const invoke = async (): Promise<number> => {
    const started = performance.now();
    const r = await fetch(`${runtime}/static`, { headers: { authorization: `Bearer ${key}` } });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`/static → ${r.status}`);
    return performance.now() - started;
  };
  /** Invocation latencies while `during` runs (or for `ms` when it is a number). */
  const invokeWhile = async (during: Promise<unknown> | number): Promise<number[]> => {
    let done = false;
    const over = typeof during === 'number' ? Bun.sleep(during) : during;
    void over.then(() => (done = true), () => (done = true));
    const samples: number[] = [];
    while (!done) {
      samples.push(await invoke());
      await Bun.sleep(5);
    }
    return samples;
  };
  const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;

  for (let i = 0; i < 50; i++) await invoke(); // warm-up
  const idle = await invokeWhile(3000);
  const base = { worst: Math.max(...idle), p99: quantile(idle, 0.99) };
  const rows: string[][] = [['no list query (baseline)', '', String(idle.length), base.p99.toFixed(2), '1.00×', base.worst.toFixed(2), '1.00×']];
  for (const [name, query] of QUERIES) {
    for (let round = 0; round < 2; round++) {
      const started = performance.now();
      let took = 0;
      const listed = fetch(`${control}/api/v1/audit?${query}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } }).then(async (r) => {
        await r.arrayBuffer();
        took = performance.now() - started;
        if (r.status !== 200) throw new Error(`${query} → ${r.status}`);
      });
      const during = await invokeWhile(listed);
      await listed;
      if (round === 0) continue; // the first pass warms the page cache
      const worst = Math.max(...during);
      const p99 = quantile(during, 0.99);
      rows.push([name, took.toFixed(0), String(during.length), p99.toFixed(2), `${(p99 / base.p99).toFixed(2)}×`, worst.toFixed(2), `${(worst / base.worst).toFixed(2)}×`]);
    }
  }
  console.log(`\nInvocations (GET /static, one at a time) while the audit trail of ${ROWS} rows is listed\n`);
  console.log(table(['list query', 'query ms', 'invocations', 'p99 ms', '× baseline', 'slowest ms', '× baseline'], rows));
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
