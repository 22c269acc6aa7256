// List engine bench (not a test). Run: node_modules/.bin/bun bench/list-query.ts [--rows=1000000] [--no-postgres]
//  1. parse + compile time of a realistic query, as a ratio to JSON.parse of its filter string;
//  2. a 100-row filtered, sorted page at N events vs the same page at 10,000 events, on SQLite
//     and (when reachable) Postgres, for: one run holding all N events; one 1000-event run among
//     N/1000 such runs; a whole run tree of N events across runs (not index-backed for its sort,
//     then with a matching index). Each database holds 2N events.
import { Database } from 'bun:sqlite';
import postgresjs from 'postgres';
import { compileList } from '../src/core/query/compile/index.ts';
import { dialectFor } from '../src/core/query/dialect/index.ts';
import { parseListQuery } from '../src/core/query/parse/index.ts';
import { runEventsResource } from '../src/core/query/resources/run-events.ts';
import { type RunListOptions, runList } from '../src/core/query/run.ts';
import { postgresRunner } from '../src/core/db/postgres/runner.ts';
import { sqliteRunner } from '../src/core/db/sqlite/runner.ts';
import type { SqlRunner } from '../src/core/query/model/types.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}`))?.split('=')[1];
const BIG = Number(arg('rows') ?? 1_000_000);
const SMALL = 10_000;
const withPostgres = !process.argv.includes('--no-postgres');
/** --explain prints each scenario's plan (debug output) at the large size. */
const explainPlans = process.argv.includes('--explain');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

function timeSync(iterations: number, work: () => void): number {
  for (let i = 0; i < Math.min(1000, iterations); i++) work();
  const started = performance.now();
  for (let i = 0; i < iterations; i++) work();
  return ((performance.now() - started) / iterations) * 1000; // µs per call
}

async function timeAsync(runs: number, work: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 10; i++) await work();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  return median(samples); // ms
}

// ---- 1. parse + compile ----------------------------------------------------------------
const RUN = '00000000-0000-4000-8000-00000000000a';
const filter = JSON.stringify({
  and: [
    { field: 'type', op: 'in', value: ['tool_call.requested', 'tool_call.completed', 'tool_call.failed'] },
    { field: 'createdAt', op: 'gte', value: '2024-01-01T00:00:00Z' },
    { or: [{ field: 'data.toolName', op: 'startsWith', value: 'search' }, { field: 'tickIndex', op: 'between', value: [2, 40] }, { not: { field: 'actor', op: 'eq', value: 'system' } }] },
    { field: 'run.status', op: 'ne', value: 'failed' },
  ],
});
const query = `filter=${encodeURIComponent(filter)}&sort=-seq,createdAt&fields=id,seq,type,createdAt,data.toolName,run.status&limit=100&count=true`;
const scopes = { base: { kind: 'pred' as const, field: 'runId', op: 'eq' as const, value: RUN, at: '/scope' }, tables: new Map() };
const jsonUs = timeSync(50_000, () => JSON.parse(filter));
const parseUs = timeSync(50_000, () => parseListQuery(query));
const compileUs = Object.fromEntries(
  (['sqlite', 'postgres'] as const).map((d) => {
    const dialect = dialectFor(d);
    return [d, timeSync(20_000, () => dialect.toQuery(compileList(dialect, runEventsResource, parseListQuery(query), scopes).page))];
  }),
);
console.log(`parse+compile of a realistic query (${filter.length}-char filter, 7 predicates, sort, projection, relation):`);
console.log(`  JSON.parse(filter)          ${jsonUs.toFixed(2)} µs`);
console.log(`  parseListQuery              ${parseUs.toFixed(2)} µs  (${(parseUs / jsonUs).toFixed(1)}× JSON.parse)`);
for (const [d, us] of Object.entries(compileUs)) console.log(`  parse+compile+SQL ${d.padEnd(9)} ${us.toFixed(2)} µs  (${(us / jsonUs).toFixed(1)}× JSON.parse)`);

// ---- 2. listing -------------------------------------------------------------------------
const TYPES = ['tick.started', 'message.created', 'tool_call.requested', 'tool_call.completed', 'tick.completed', 'usage.reported', 'tool_call.started', 'message.created', 'tick.started', 'tick.completed'];
const ONE = '00000000-0000-4000-8000-0000000000aa';
const ROOT = '00000000-0000-4000-8000-0000000000bb';
const PER_RUN = 1000;
const treeRun = (i: number) => `00000000-0000-4000-8000-${String(1_000_000 + i).padStart(12, '0')}`;
const BASE_MS = Date.parse('2024-01-01T00:00:00Z');

interface Scenario { name: string; q: string; options: RunListOptions }
const page = `filter=${encodeURIComponent(JSON.stringify({ field: 'type', op: 'in', value: ['tool_call.requested', 'tool_call.completed'] }))}&fields=id,seq,type,createdAt,data.toolName&limit=100`;
const SCENARIOS: Scenario[] = [
  { name: 'one run holding all N events   (runId, type in …, sort seq)', q: `${page}&sort=seq`, options: { scope: { field: 'runId', op: 'eq', value: ONE }, debugAllowed: false } },
  { name: 'same, page at offset 1000', q: `${page}&sort=seq&offset=1000`, options: { scope: { field: 'runId', op: 'eq', value: ONE }, debugAllowed: false } },
  { name: 'one 1000-event run among N/1000 (runId, type in …, sort -seq)', q: `${page}&sort=-seq`, options: { scope: { field: 'runId', op: 'eq', value: treeRun(5) }, debugAllowed: false } },
  { name: 'across runs: a run tree of N   (rootRunId, type in …, sort -createdAt)', q: `${page}&sort=-createdAt`, options: { scope: { field: 'rootRunId', op: 'eq', value: ROOT }, debugAllowed: false } },
];
const INDEXED_TREE = 'across runs, with index (root_run_id, created_at)';

const DDL = (pg: boolean) => [
  `CREATE TABLE runs (id ${pg ? 'uuid' : 'TEXT'} PRIMARY KEY, status TEXT NOT NULL, agent_id ${pg ? 'uuid' : 'TEXT'} NOT NULL)`,
  `CREATE TABLE events (id ${pg ? 'uuid' : 'TEXT'} PRIMARY KEY, run_id ${pg ? 'uuid' : 'TEXT'} NOT NULL, root_run_id ${pg ? 'uuid' : 'TEXT'} NOT NULL, parent_run_id ${pg ? 'uuid' : 'TEXT'}, seq INTEGER NOT NULL, type TEXT NOT NULL, tick_index INTEGER, actor TEXT NOT NULL, data ${pg ? 'jsonb' : 'TEXT'} NOT NULL, created_at ${pg ? 'timestamptz(3)' : 'INTEGER'} NOT NULL)`,
  'CREATE UNIQUE INDEX events_run_seq ON events (run_id, seq)',
  'CREATE INDEX events_run_type ON events (run_id, type)',
  'CREATE INDEX events_root ON events (root_run_id)',
];

async function seedSqlite(db: Database, n: number): Promise<void> {
  for (const s of DDL(false)) db.run(s);
  const insert = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const data = `{"toolName":"t${i % 7}","n":${i % 100}}`;
      insert.run(crypto.randomUUID(), ONE, ONE, null, i + 1, TYPES[i % 10] ?? '', Math.floor(i / 10), 'agent', data, BASE_MS + i * 1000);
    }
    for (let i = 0; i < n; i++) {
      insert.run(crypto.randomUUID(), treeRun(Math.floor(i / PER_RUN)), ROOT, ROOT, (i % PER_RUN) + 1, TYPES[i % 10] ?? '', 0, 'agent', `{"toolName":"t${i % 7}"}`, BASE_MS + i * 1000);
    }
  })();
  db.run('ANALYZE');
}

async function seedPostgres(sql: postgresjs.Sql, n: number): Promise<void> {
  for (const s of DDL(true)) await sql.unsafe(s);
  const per = PER_RUN;
  await sql.unsafe(`INSERT INTO events SELECT gen_random_uuid(), '${ONE}', '${ONE}', NULL, i, (ARRAY[${TYPES.map((t) => `'${t}'`).join(',')}])[(i - 1) % 10 + 1], (i - 1) / 10, 'agent', jsonb_build_object('toolName', 't' || ((i - 1) % 7), 'n', (i - 1) % 100), timestamptz '2024-01-01Z' + (i - 1) * interval '1 second' FROM generate_series(1, ${n}) AS i`);
  await sql.unsafe(`INSERT INTO events SELECT gen_random_uuid(), ('00000000-0000-4000-8000-' || lpad((1000000 + (i - 1) / ${per})::text, 12, '0'))::uuid, '${ROOT}', '${ROOT}', (i - 1) % ${per} + 1, (ARRAY[${TYPES.map((t) => `'${t}'`).join(',')}])[(i - 1) % 10 + 1], 0, 'agent', jsonb_build_object('toolName', 't' || ((i - 1) % 7)), timestamptz '2024-01-01Z' + (i - 1) * interval '1 second' FROM generate_series(1, ${n}) AS i`);
  await sql.unsafe('VACUUM ANALYZE events');
}

async function measure(runner: SqlRunner, addIndex: () => Promise<void>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const s of SCENARIOS) {
    const parsed = parseListQuery(s.q);
    const check = await runList(runner, runEventsResource, parsed, s.options);
    if (check.data.length !== 100) throw new Error(`${s.name}: expected a full page, got ${check.data.length}`);
    out[s.name] = await timeAsync(s.name.startsWith('across') ? 15 : 200, () => runList(runner, runEventsResource, parsed, s.options));
    if (explainPlans) {
      const debug = await runList(runner, runEventsResource, parseListQuery(`${s.q}&debug=true`), { ...s.options, debugAllowed: true });
      console.log(`[${runner.dialect}] ${s.name}\n  ${debug.debug?.sql}\n  ${JSON.stringify(debug.debug?.plan)}`);
    }
  }
  await addIndex();
  const tree = SCENARIOS[3];
  if (tree) {
    const parsed = parseListQuery(tree.q);
    out[INDEXED_TREE] = await timeAsync(200, () => runList(runner, runEventsResource, parsed, tree.options));
    if (explainPlans) {
      const debug = await runList(runner, runEventsResource, parseListQuery(`${tree.q}&debug=true`), { ...tree.options, debugAllowed: true });
      console.log(`[${runner.dialect}] ${INDEXED_TREE}\n  ${JSON.stringify(debug.debug?.plan)}`);
    }
  }
  return out;
}

function report(engine: string, small: Record<string, number>, big: Record<string, number>): void {
  console.log(`\n${engine}: median time of one 100-row page (runList: parse, compile, query, decode)`);
  console.log(`  ${'scenario'.padEnd(72)} ${`${SMALL}`.padStart(9)} ${`${BIG}`.padStart(10)}   ratio`);
  for (const name of Object.keys(big)) {
    const a = small[name] ?? NaN;
    const b = big[name] ?? NaN;
    console.log(`  ${name.padEnd(72)} ${a.toFixed(3).padStart(7)}ms ${b.toFixed(3).padStart(8)}ms   ${(b / a).toFixed(2)}×`);
  }
}

const sqliteResults: Record<string, number>[] = [];
for (const n of [SMALL, BIG]) {
  const db = new Database(':memory:');
  const started = performance.now();
  await seedSqlite(db, n);
  console.error(`[sqlite] seeded ${2 * n} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  sqliteResults.push(await measure(sqliteRunner(db), async () => {
    db.run('CREATE INDEX events_root_created ON events (root_run_id, created_at)');
    db.run('ANALYZE');
  }));
  db.close();
}
report('SQLite (bun:sqlite, in memory)', sqliteResults[0] ?? {}, sqliteResults[1] ?? {});

if (withPostgres) {
  const admin = postgresjs({ host: '127.0.0.1', user: 'postgres', database: 'test', max: 1, onnotice: () => {}, connect_timeout: 3 });
  try {
    await admin`select 1`;
    const pgResults: Record<string, number>[] = [];
    for (const n of [SMALL, BIG]) {
      const schema = `bench_${Math.random().toString(36).slice(2, 8)}`;
      await admin.unsafe(`CREATE SCHEMA ${schema}`);
      const client = postgresjs({ host: '127.0.0.1', user: 'postgres', database: 'test', max: 2, onnotice: () => {}, connection: { search_path: schema } });
      try {
        const started = performance.now();
        await seedPostgres(client, n);
        console.error(`[postgres] seeded ${2 * n} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);
        pgResults.push(await measure(postgresRunner(client), async () => {
          await client.unsafe('CREATE INDEX events_root_created ON events (root_run_id, created_at)');
          await client.unsafe('ANALYZE events');
        }));
      } finally {
        await client.end({ timeout: 1 });
        await admin.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      }
    }
    report('Postgres 127.0.0.1 (postgres.js)', pgResults[0] ?? {}, pgResults[1] ?? {});
  } catch (error) {
    console.log(`\nPostgres skipped: ${String(error)}`);
  } finally {
    await admin.end({ timeout: 1 });
  }
}
