// Row locks for check-then-act writes on Postgres, where two read-committed transactions can
// each check before the other commits. SQLite needs none: its writers are serialised.
import { sql, type SQL } from 'drizzle-orm';
import type { Database, Orm } from './database.ts';

/**
 * Locks the row `id` of `table` until the transaction ends: `share` for a writer that depends on
 * the row staying (binding it), `update` for one that removes it after checking it is unused.
 * A writer holding `update` waits for every `share` holder to commit, and then re-reads.
 */
export async function lockRow(db: Database, q: Orm, table: 'components' | 'principals', id: string, mode: 'share' | 'update'): Promise<void> {
  if (db.dialect !== 'postgres') return;
  const statement = sql`SELECT 1 FROM ${sql.identifier(table)} WHERE id = ${id} FOR ${sql.raw(mode === 'update' ? 'UPDATE' : 'SHARE')}`;
  // On Postgres `q` is drizzle's Postgres builder (see Orm), which runs raw SQL with execute().
  await (q as unknown as { execute(query: SQL): Promise<unknown> }).execute(statement);
}
