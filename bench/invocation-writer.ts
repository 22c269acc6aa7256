// How fast invocation records become audit rows and statistics, per database: the generic writer
// (runtime/recorder/write.ts, through the query builder: one bound parameter per value) against
// each database's fast path on the writer thread (sqlite-store.ts, pg-store.ts), in batches of
// 2048 as the recorder sends them. Reports wall time per row and, for a Postgres server on this
// machine, the server's own CPU per row (its processes' /proc times; a remote server shows none).
//
//   node_modules/.bin/bun bench/invocation-writer.ts      [--rows=100000] [--rounds=3]
//   POSTGRES_URL=postgres://… to choose the server (default: the local test database)
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { openDatabase, type Database } from '../src/core/db/index.ts';
import type { InvocationRecord } from '../runtime/recorder/types.ts';
import { writeInvocations, type WriteResult } from '../runtime/recorder/write.ts';
import { SqliteInvocationStore } from '../runtime/recorder/sqlite-store.ts';
import { PostgresInvocationStore } from '../runtime/recorder/pg-store.ts';
import { median } from './lib/timing.ts';
import { table } from './lib/table.ts';

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const ROWS = Number(arg('rows', '100000'));
const ROUNDS = Number(arg('rounds', '3'));
const BATCH = 2048;
const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const endpoints = Array.from({ length: 4 }, () => crypto.randomUUID());
const workspace = crypto.randomUUID();
const caller = crypto.randomUUID();
function batch(): InvocationRecord[] {
  const at = Date.now();
  return Array.from({ length: BATCH }, (_, i) => ({
    at, endpointId: endpoints[i % endpoints.length]!, workspaceId: workspace, initiatorId: caller, executionAccountId: i % 2 === 0 ? caller : null,
    status: i % 50 === 0 ? 500 : 200, durationMs: (i % 40) / 3, oid: crypto.randomUUID(), executionId: crypto.randomUUID(),
  }));
}

/** CPU time (ms) of the local Postgres server's processes, reaped backends included; null when there is none here. */
function postgresCpuMs(): number | null {
  const ticks = (pid: string, reaped: boolean) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]) + (reaped ? Number(f[13]) + Number(f[14]) : 0);
  };
  let postmaster: string | undefined;
  const children: string[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      const ppid = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]!;
      if (readFileSync(`/proc/${ppid}/comm`, 'utf8').trim() === 'postgres') children.push(pid);
      else postmaster = pid;
    } catch {
      // gone meanwhile
    }
  }
  if (!postmaster) return null;
  let total = ticks(postmaster, true);
  for (const pid of children) {
    try {
      total += ticks(pid, false);
    } catch {
      // exited: now counted in the postmaster's reaped time
    }
  }
  return total * 10;
}

interface Writer {
  name: string;
  write(records: InvocationRecord[]): WriteResult | Promise<WriteResult>;
  close(): Promise<void>;
}

async function measure(w: Writer, serverCpu: boolean): Promise<{ wall: number; cpu: number | null }> {
  const batches = Array.from({ length: Math.ceil(ROWS / BATCH) }, batch);
  const cpu0 = serverCpu ? postgresCpuMs() : null;
  const t0 = performance.now();
  for (const b of batches) {
    const r = await w.write(b);
    if (r.error) throw new Error(`${w.name}: ${r.error}`);
  }
  const wall = ((performance.now() - t0) * 1000) / (batches.length * BATCH);
  await Bun.sleep(200); // backends' last work lands in /proc
  const cpu1 = serverCpu ? postgresCpuMs() : null;
  return { wall, cpu: cpu0 === null || cpu1 === null ? null : ((cpu1 - cpu0) * 1000) / (batches.length * BATCH) };
}

const generic = (name: string, db: Database): Writer => ({ name, write: (r) => writeInvocations(db, r), close: () => db.close() });

async function main() {
  const rows: string[][] = [];
  // SQLite: a file database, as the writer thread has it.
  const dir = mkdtempSync(join(tmpdir(), 'bench-writer-'));
  const file = join(dir, 'p.db');
  const sqliteDb = await openDatabase(`sqlite:${file}`);
  const sqliteStore = new SqliteInvocationStore(file);
  const sqliteWriters: Writer[] = [generic('SQLite, query builder (write.ts)', sqliteDb), { name: 'SQLite, prepared multi-row inserts (sqlite-store.ts)', write: (r) => sqliteStore.write(r), close: async () => sqliteStore.close() }];

  // Postgres: a schema of its own, dropped at the end.
  const schema = `bench_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
  let pgWriters: Writer[] = [];
  try {
    const pgDb = await openDatabase(POSTGRES_URL, { schema, max: 2 });
    const pgStore = new PostgresInvocationStore({ url: POSTGRES_URL, schema });
    pgWriters = [generic('Postgres, query builder (write.ts)', pgDb), { name: 'Postgres, one array per column (pg-store.ts)', write: (r) => pgStore.write(r), close: () => pgStore.close() }];
  } catch (error) {
    console.error(`Postgres at ${POSTGRES_URL} unavailable (${String(error)}): SQLite only`);
  }
  const local = postgresCpuMs() !== null;

  for (const group of [sqliteWriters, pgWriters]) {
    if (group.length === 0) continue;
    const samples = new Map(group.map((w) => [w.name, { wall: [] as number[], cpu: [] as number[] }]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const w of round % 2 === 0 ? group : [...group].reverse()) {
        const m = await measure(w, local && w.name.startsWith('Postgres'));
        samples.get(w.name)!.wall.push(m.wall);
        if (m.cpu !== null) samples.get(w.name)!.cpu.push(m.cpu);
      }
    }
    const baseline = median(samples.get(group[0]!.name)!.wall);
    for (const w of group) {
      const s = samples.get(w.name)!;
      const wall = median(s.wall);
      rows.push([w.name, wall.toFixed(1), `${(baseline / wall).toFixed(2)}×`, s.cpu.length > 0 ? median(s.cpu).toFixed(1) : '–', Math.round(1e6 / wall).toLocaleString('en')]);
    }
  }
  for (const w of [...sqliteWriters, ...pgWriters]) await w.close();
  rmSync(dir, { recursive: true, force: true });
  if (pgWriters.length > 0) {
    const sql = postgres(POSTGRES_URL, { max: 1, onnotice: () => {} });
    await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await sql.end();
  }

  console.log(`Invocation writer: ${ROWS} rows per writer per round in batches of ${BATCH}, ${ROUNDS} rounds (medians); Bun ${Bun.version}`);
  console.log(table(['writer', 'wall µs/row', '× query builder', 'Postgres server CPU µs/row', 'rows/s'], rows));
}

await main();
