// Opens the database named by DATABASE_URL. The Postgres client is loaded only for a Postgres URL
// (the embedded default never needs it).
import { openSqlite } from './sqlite/open.ts';
import type { PostgresOptions } from './postgres/open.ts';
import type { Database } from './database.ts';

export type { Database, DatabaseLocation,  Orm, Tables } from './database.ts';

/** `sqlite:<file>`, `sqlite::memory:` or `postgres://…`. */
export async function openDatabase(url: string, options: PostgresOptions = {}): Promise<Database> {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length));
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return (await import('./postgres/open.ts')).openPostgres(url, options);
  throw new Error(`unsupported DATABASE_URL scheme: ${url.split(':')[0]}`);
}
