// The definition index version (DESIGN §9): bumped inside the transaction of every change that
// affects the runtime; the channels (../index-channels/) tell runtimes after the commit.
import { eq, sql } from 'drizzle-orm';
import type { Database, Orm } from '../db/index.ts';

/** Increments the version in the caller's transaction and returns the new value. */
export async function bumpIndexVersion(db: Database, q: Orm): Promise<number> {
  const { indexState } = db.t;
  const rows = await q
    .update(indexState)
    .set({ version: sql`${indexState.version} + 1`, updatedAt: new Date() })
    .where(eq(indexState.id, 1))
    .returning({ version: indexState.version });
  if (rows[0]) return rows[0].version;
  // First change of this database: the row starts at 1 (a concurrent first insert falls back to the update).
  const inserted = await q.insert(indexState).values({ id: 1, version: 1, updatedAt: new Date() }).onConflictDoNothing().returning({ version: indexState.version });
  return inserted[0]?.version ?? bumpIndexVersion(db, q);
}

export async function currentIndexVersion(db: Database): Promise<number> {
  const { indexState } = db.t;
  const rows = await db.read((q) => q.select({ version: indexState.version }).from(indexState).where(eq(indexState.id, 1)));
  return rows[0]?.version ?? 0;
}
