// Which databases a suite runs on: SQLite always; Postgres when reachable, and always under CI
// (where an unreachable server must fail, not skip).
import { join } from 'node:path';
import postgres from 'postgres';
import { test } from 'bun:test';
import { tempDir } from './temp.ts';

export const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const CI = process.env.CI === 'true';

async function postgresReachable(): Promise<boolean> {
  const sql = postgres(POSTGRES_URL, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await sql`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

const reachable = await postgresReachable();
if (!reachable && !CI) console.log(`[skip] Postgres suites: no server at ${POSTGRES_URL}`);
if (!reachable && CI) {
  test('Postgres is reachable (required when CI=true)', () => {
    throw new Error(`No Postgres server at ${POSTGRES_URL}`);
  });
}

export interface DatabaseCase {
  name: 'sqlite' | 'postgres';
  env: Record<string, string>;
  /** A fresh schema per suite keeps Postgres runs independent. */
  postgresSchema?: string;
}

/**
 * The cases a shared suite runs against. SQLite is a file, as on the embedded default (list
 * queries then run on reader threads, invocation records on the writer thread).
 */
export function databaseCases(): DatabaseCase[] {
  const file = join(tempDir('test-db'), 'platform.db');
  const cases: DatabaseCase[] = [{ name: 'sqlite', env: { DATABASE_URL: `sqlite:${file}` } }];
  if (reachable) {
    cases.push({ name: 'postgres', env: { DATABASE_URL: POSTGRES_URL }, postgresSchema: `t_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}` });
  }
  return cases;
}

/** Drops a test schema. */
export async function dropPostgresSchema(schema: string | undefined): Promise<void> {
  if (!schema) return;
  const sql = postgres(POSTGRES_URL, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await sql.end({ timeout: 1 });
  }
}
