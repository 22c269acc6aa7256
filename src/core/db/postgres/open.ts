// Postgres (postgres.js) behind the Database interface, for scale-out deployments.
import { postgresClient } from './client.ts';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import type { SQL } from 'drizzle-orm';
import { pgTables } from '../schema/index.ts';
import type { Database, Orm, Tables } from '../index.ts';
import { postgresRunner } from './runner.ts';

const MIGRATIONS = join(import.meta.dirname, '..', 'migrations', 'pg');
const PING_TIMEOUT_MS = 1000;
/**
 * List queries get connections of their own: a few heavy ones (a group over millions of audit
 * rows) then cannot take every connection of the pool that credential lookups and writes need,
 * and each is cut off by the server past this time (57014, answered 503 QUERY_TIMEOUT); one that
 * has waited that long for a connection is answered QUERY_TIMEOUT as well (./runner.ts).
 */
const LIST_CONNECTIONS = 4;
const LIST_STATEMENT_TIMEOUT_MS = 30_000;
/** Idle list connections are closed after this: most instances list rarely. */
const LIST_IDLE_SECONDS = 60;

export interface PostgresOptions {
  /** Schema to create and use (tests isolate themselves this way); default `public`. */
  schema?: string;
  max?: number;
  /** Server-side limit of one list query (default LIST_STATEMENT_TIMEOUT_MS). */
  listTimeoutMs?: number;
}

/**
 * Applies migrations holding a session advisory lock, on a connection of its own: processes
 * started together against an empty database (a scale-out roll-out) take turns instead of racing
 * to create the same tables, which failed the start of all but one of them.
 */
async function migrateOnce(url: string, schema: string): Promise<void> {
  const session = postgresClient(url, { schema, max: 1, name: 'api-platform-migrate' });
  try {
    await session`SELECT pg_advisory_lock(hashtext(${`api-platform:migrations:${schema}`}))`;
    if (schema !== 'public') await session.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await migrate(drizzle({ client: session }), { migrationsFolder: MIGRATIONS, migrationsSchema: schema });
  } finally {
    // Ending the session releases the lock.
    await session.end({ timeout: 5 });
  }
}

/** Opens a pool, applies migrations, and returns the Database. */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Database> {
  const schema = options.schema ?? 'public';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  const client = postgresClient(url, { schema, max: options.max ?? 10, name: 'api-platform' });
  const lists = postgresClient(url, {
    schema,
    max: LIST_CONNECTIONS,
    name: 'api-platform-lists',
    statementTimeoutMs: options.listTimeoutMs ?? LIST_STATEMENT_TIMEOUT_MS,
    idleSeconds: LIST_IDLE_SECONDS,
  });
  const orm = drizzle({ client, schema: pgTables });
  try {
    await migrateOnce(url, schema);
  } catch (error) {
    await Promise.all([client.end({ timeout: 1 }), lists.end({ timeout: 1 })]);
    throw error;
  }

  // The one place the dialects meet: the Postgres builder over identically named tables is
  // handed out under the SQLite builder's type (see Orm in ../database.ts).
  const q = orm as unknown as Orm;
  return {
    dialect: 'postgres',
    t: pgTables as unknown as Tables,
    runner: postgresRunner(lists, options.listTimeoutMs ?? LIST_STATEMENT_TIMEOUT_MS),
    location: { url, ...(options.schema ? { schema: options.schema } : {}) },
    read: (fn) => fn(q),
    write: (fn) => orm.transaction((tx) => fn(tx as unknown as Orm)),
    all: async (query: SQL) => Array.from(await orm.execute<Record<string, unknown>>(query)),
    // Bounded: readiness probes must answer promptly while the database is unreachable.
    ping: async () => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), PING_TIMEOUT_MS)));
      try {
        return await Promise.race([client`SELECT 1`.then(() => true, () => false), late]);
      } finally {
        clearTimeout(timer);
      }
    },
    // Everything that writes has finished by now (records spilled or written): a query still
    // waiting is on a database that hangs, and shutdown must not wait long for it.
    close: async () => {
      await Promise.all([client.end({ timeout: 2 }), lists.end({ timeout: 2 })]);
    },
  };
}
