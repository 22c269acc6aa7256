// Opens the database named by DATABASE_URL.
import { openSqlite } from './sqlite/open.ts';
import { openPostgres, type PostgresOptions } from './postgres/open.ts';
import type { Database } from './database.ts';

export type { Database, DatabaseLocation, Dialect, Orm, Tables } from './database.ts';

/** `sqlite:<file>`, `sqlite::memory:` or `postgres://…`. */
export async function openDatabase(url: string, options: PostgresOptions = {}): Promise<Database> {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length));
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return openPostgres(url, options);
  throw new Error(`unsupported DATABASE_URL scheme: ${url.split(':')[0]}`);
}
