// Postgres behind the Database interface (./open.ts) and the one way the platform makes a
// postgres.js client (./client.ts). The Database loads on the first open: the invocation writer's
// thread, which needs only the client, never loads drizzle, the tables or the list engine.
import type { Database } from '../index.ts';
import type { PostgresOptions } from './open.ts';

export { postgresClient } from './client.ts';
export type { PostgresOptions } from './open.ts';

/** Opens a pool, applies migrations, and returns the Database. */
export const openPostgres = async (url: string, options?: PostgresOptions): Promise<Database> => (await import('./open.ts')).openPostgres(url, options);
