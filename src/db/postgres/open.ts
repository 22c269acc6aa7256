// Postgres (postgres.js) behind the Database interface, for scale-out deployments.
import postgres from 'postgres';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import type { SQL } from 'drizzle-orm';
import * as pgTables from '../schema/pg.ts';
import type { Database, Orm, Tables } from '../database.ts';
import { postgresRunner } from '../../query/runners.ts';

const MIGRATIONS = join(import.meta.dir, '..', 'migrations', 'pg');
const PING_TIMEOUT_MS = 1000;

export interface PostgresOptions {
  /** Schema to create and use (tests isolate themselves this way); default `public`. */
  schema?: string;
  max?: number;
}

/** Opens a pool, applies migrations, and returns the Database. */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Database> {
  const schema = options.schema ?? 'public';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  const client = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    // Fail fast and come back fast: by default postgres.js waits up to 30 s for a connection and
    // backs off reconnects up to 20 s, and queued queries wait it out, so an outage would stall
    // every caller (readiness included) and its end would go unnoticed for seconds.
    connect_timeout: 5,
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
    connection: { search_path: schema, application_name: 'api-platform' },
  });
  if (schema !== 'public') await client.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  const orm = drizzle({ client, schema: pgTables });
  await migrate(orm, { migrationsFolder: MIGRATIONS, migrationsSchema: schema });

  // The one place the dialects meet: the Postgres builder over identically named tables is
  // handed out under the SQLite builder's type (see Orm in ../database.ts).
  const q = orm as unknown as Orm;
  return {
    dialect: 'postgres',
    t: pgTables as unknown as Tables,
    runner: postgresRunner(client),
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
    close: async () => {
      await client.end({ timeout: 5 });
    },
  };
}
