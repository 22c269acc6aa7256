// Test databases for the list engine: in-memory SQLite always; Postgres in a throwaway schema
// when the server answers (required when CI=true). Tables follow the app's storage conventions.
import { Database } from 'bun:sqlite';
import postgresjs from 'postgres';
import { postgresRunner } from '../../../src/core/db/postgres/runner.ts';
import { sqliteRunner } from '../../../src/core/db/sqlite/runner.ts';
import type { Dialect, SqlRunner } from '../../../src/core/query/model/types.ts';

export interface TestDb {
  name: Dialect;
  runner: SqlRunner;
  /** Runs DDL or seed statements (no parameters). */
  exec(statement: string): Promise<void>;
  /** Inserts rows (column → value, values already in storage form for the dialect). */
  insert(table: string, rows: Record<string, unknown>[]): Promise<void>;
  close(): Promise<void>;
}

const TYPES: Record<Dialect, Record<string, string>> = {
  sqlite: { uuid: 'TEXT', text: 'TEXT', int: 'INTEGER', float: 'REAL', bool: 'INTEGER', ts: 'INTEGER', json: 'TEXT' },
  postgres: { uuid: 'uuid', text: 'text', int: 'integer', float: 'double precision', bool: 'boolean', ts: 'timestamptz(3)', json: 'jsonb' },
};

/** DDL of runs, events and a `things` table covering every field type. */
export function schema(dialect: Dialect): string[] {
  const t = TYPES[dialect];
  return [
    `CREATE TABLE runs (id ${t.uuid} PRIMARY KEY, agent_id ${t.uuid} NOT NULL, workspace_id ${t.uuid} NOT NULL, root_run_id ${t.uuid} NOT NULL, parent_run_id ${t.uuid}, status ${t.text} NOT NULL, stop_reason ${t.text}, input ${t.json}, created_by ${t.text} NOT NULL, created_at ${t.ts} NOT NULL, started_at ${t.ts}, ended_at ${t.ts}, tick_count ${t.int} NOT NULL DEFAULT 0)`,
    `CREATE TABLE events (id ${t.uuid} PRIMARY KEY, run_id ${t.uuid} NOT NULL, root_run_id ${t.uuid} NOT NULL, parent_run_id ${t.uuid}, seq ${t.int} NOT NULL, type ${t.text} NOT NULL, tick_index ${t.int}, actor ${t.text} NOT NULL, data ${t.json} NOT NULL, created_at ${t.ts} NOT NULL)`,
    'CREATE UNIQUE INDEX events_run_seq ON events (run_id, seq)',
    'CREATE INDEX events_run_type ON events (run_id, type)',
    'CREATE INDEX events_root ON events (root_run_id)',
    `CREATE TABLE things (id ${t.uuid} PRIMARY KEY, owner_id ${t.uuid}, name ${t.text} NOT NULL, note ${t.text}, rank ${t.int}, score ${t.float}, active ${t.bool}, seen_at ${t.ts}, meta ${t.json}, tags ${t.json}, nums ${t.json}, secret ${t.text})`,
  ];
}

/** A value in the storage form of `dialect` for a column kind. */
export function store(dialect: Dialect, kind: 'ts' | 'json' | 'bool', value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (dialect === 'sqlite') {
    if (kind === 'ts') return typeof value === 'number' ? value : Date.parse(String(value));
    if (kind === 'json') return JSON.stringify(value);
    return value ? 1 : 0;
  }
  if (kind === 'ts') return new Date(typeof value === 'number' ? value : Date.parse(String(value))).toISOString();
  if (kind === 'json') return JSON.stringify(value);
  return Boolean(value);
}

export function openSqlite(file = ':memory:'): TestDb {
  const db = new Database(file);
  return {
    name: 'sqlite',
    runner: sqliteRunner(db),
    async exec(statement) {
      db.run(statement);
    },
    async insert(table, rows) {
      const first = rows[0];
      if (!first) return;
      const cols = Object.keys(first);
      const stmt = db.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
      db.transaction(() => {
        for (const row of rows) stmt.run(...(cols.map((c) => row[c] ?? null) as never[]));
      })();
      stmt.finalize();
    },
    async close() {
      db.close();
    },
  };
}

const JSON_COLUMNS = new Set(['input', 'data', 'meta', 'tags', 'nums']);
// The machine's server by default; the usual PG* variables point elsewhere.
const PG_URL = {
  host: process.env.PGHOST ?? '127.0.0.1',
  port: Number(process.env.PGPORT ?? 5432),
  user: process.env.PGUSER ?? 'postgres',
  database: process.env.PGDATABASE ?? 'test',
};

/** Opens Postgres in a fresh schema; undefined (with a one-line message) when unreachable outside CI. */
export async function openPostgres(): Promise<TestDb | undefined> {
  const schemaName = `q_${Math.random().toString(36).slice(2, 10)}`;
  const admin = postgresjs({ ...PG_URL, max: 1, onnotice: () => {}, connect_timeout: 3 });
  try {
    await admin.unsafe(`CREATE SCHEMA ${schemaName}`);
  } catch (error) {
    await admin.end({ timeout: 1 }).catch(() => {});
    if (process.env.CI === 'true') throw new Error(`Postgres is required when CI=true: ${String(error)}`);
    console.log(`[list-engine tests] Postgres unreachable at ${PG_URL.host}:${PG_URL.port}; Postgres cases skipped`);
    return undefined;
  }
  const client = postgresjs({ ...PG_URL, max: 4, onnotice: () => {}, connection: { search_path: schemaName, TimeZone: 'Europe/Paris' } });
  return {
    name: 'postgres',
    runner: postgresRunner(client),
    async exec(statement) {
      await client.unsafe(statement);
    },
    async insert(table, rows) {
      const first = rows[0];
      if (!first) return;
      const cols = Object.keys(first);
      // JSON columns get their text through an explicit cast (postgres.js would send a JSON string).
      const per = Math.floor(30_000 / cols.length);
      for (let i = 0; i < rows.length; i += per) {
        const chunk = rows.slice(i, i + per);
        const params: unknown[] = [];
        const tuples = chunk.map((row) => `(${cols.map((c) => {
          params.push(row[c] ?? null);
          return JSON_COLUMNS.has(c) ? `CAST(CAST($${params.length} AS text) AS jsonb)` : `$${params.length}`;
        }).join(', ')})`);
        await client.unsafe(`INSERT INTO ${table} (${cols.join(', ')}) VALUES ${tuples.join(', ')}`, params as postgresjs.ParameterOrJSON<never>[]);
      }
    },
    async close() {
      await client.end({ timeout: 1 });
      await admin.unsafe(`DROP SCHEMA ${schemaName} CASCADE`);
      await admin.end({ timeout: 1 });
    },
  };
}
