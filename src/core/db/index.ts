// Opens the database named by DATABASE_URL. The Postgres client is loaded only for a Postgres URL
// (the embedded default never needs it).
import { openSqlite } from './sqlite/index.ts';
import type { PostgresOptions } from './postgres/index.ts';
import type { Database } from './database.ts';

export type { Database, DatabaseLocation,  Orm, Tables } from './database.ts';

/** `sqlite:<file>`, `sqlite::memory:` or `postgres://…`. */
export async function openDatabase(url: string, options: PostgresOptions = {}): Promise<Database> {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length));
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return (await import('./postgres/index.ts')).openPostgres(url, options);
  throw new Error(`unsupported DATABASE_URL scheme: ${url.split(':')[0]}`);
}

export { isDatabaseUnavailable, isForeignKeyViolation, isUniqueViolation } from './errors.ts';
export { lockRow } from './row-lock.ts';
