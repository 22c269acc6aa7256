// Component rows: insert, read, versioned updates, delete. Every method runs on the `q` it is
// given, so the services can compose them inside one transaction.
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Database, Orm } from '../core/db/index.ts';
import type { ComponentRecord } from './record.ts';

export type ComponentChanges = Partial<Pick<ComponentRecord, 'name' | 'description' | 'latestRevisionId' | 'activeRevisionId'>>;

export class ComponentStore {
  constructor(private readonly db: Database) {}

  async insert(q: Orm, record: ComponentRecord): Promise<void> {
    await q.insert(this.db.t.components).values(record);
  }

  async get(q: Orm, id: string): Promise<ComponentRecord | null> {
    const { components } = this.db.t;
    const rows = await q.select().from(components).where(eq(components.id, id));
    return rows[0] ?? null;
  }

  /** Newest first; `workspaceIds` null means every workspace. */
  async byIds(q: Orm, ids: string[]): Promise<ComponentRecord[]> {
    if (ids.length === 0) return [];
    const { components } = this.db.t;
    return q.select().from(components).where(inArray(components.id, ids));
  }

  /**
   * Applies `changes` only while the stored version is `expectedVersion`, bumping it, in one
   * statement: of concurrent updates from one version exactly one wins. Inside a transaction the
   * winner also holds the row until commit, which serialises revision numbering.
   */
  async compareAndSet(q: Orm, id: string, expectedVersion: number, changes: ComponentChanges): Promise<ComponentRecord | null> {
    const { components } = this.db.t;
    const rows = await q
      .update(components)
      .set({ ...changes, version: expectedVersion + 1, updatedAt: new Date() })
      .where(and(eq(components.id, id), eq(components.version, expectedVersion)))
      .returning();
    return rows[0] ?? null;
  }

  /** Applies `changes` whatever the version (deployment activation), bumping it. */
  async bump(q: Orm, id: string, changes: ComponentChanges): Promise<ComponentRecord | null> {
    const { components } = this.db.t;
    const rows = await q
      .update(components)
      .set({ ...changes, version: sql`${components.version} + 1`, updatedAt: new Date() })
      .where(eq(components.id, id))
      .returning();
    return rows[0] ?? null;
  }

  /** Deletes the component; its revisions and deployments go with it (ON DELETE CASCADE). */
  async delete(q: Orm, id: string): Promise<boolean> {
    const { components } = this.db.t;
    const rows = await q.delete(components).where(eq(components.id, id)).returning({ id: components.id });
    return rows.length > 0;
  }
}
