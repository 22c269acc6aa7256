// Deployment attempt rows of node components: created building, finished ready or failed, and at
// most one per component marked active (the attempt whose revision is selected).
import { and, desc, eq, inArray, lt } from 'drizzle-orm';
import type { Database, Orm } from '../core/db/index.ts';
import type { DeploymentRecord } from './record.ts';

export class DeploymentStore {
  constructor(private readonly db: Database) {}

  async insert(q: Orm, record: DeploymentRecord): Promise<void> {
    await q.insert(this.db.t.deployments).values(record);
  }

  async get(q: Orm, componentId: string, id: string): Promise<DeploymentRecord | null> {
    const { deployments: d } = this.db.t;
    const rows = await q.select().from(d).where(and(eq(d.componentId, componentId), eq(d.id, id)));
    return rows[0] ?? null;
  }

  /** The deployments with these ids (the list engine picked and ordered them). */
  async byIds(q: Orm, ids: string[]): Promise<DeploymentRecord[]> {
    if (ids.length === 0) return [];
    const { deployments: d } = this.db.t;
    return q.select().from(d).where(inArray(d.id, ids));
  }

  /** Records the build outcome, only while the attempt is still building (a finished one stays as it is). */
  async finish(q: Orm, id: string, outcome: { status: 'ready' | 'failed'; error: string | null; readyAt: Date | null }): Promise<DeploymentRecord | null> {
    const { deployments: d } = this.db.t;
    const rows = await q.update(d).set(outcome).where(and(eq(d.id, id), eq(d.status, 'building'))).returning();
    return rows[0] ?? null;
  }

  /** Marks `id` the component's active attempt and clears the mark everywhere else. */
  async setActive(q: Orm, componentId: string, id: string): Promise<DeploymentRecord | null> {
    const { deployments: d } = this.db.t;
    await q.update(d).set({ active: false }).where(and(eq(d.componentId, componentId), eq(d.active, true)));
    const rows = await q.update(d).set({ active: true }).where(eq(d.id, id)).returning();
    return rows[0] ?? null;
  }

  /** Attempts still building that were started before `before` (their builder is gone). */
  async failStale(q: Orm, before: Date, error: string): Promise<number> {
    const { deployments: d } = this.db.t;
    const rows = await q
      .update(d)
      .set({ status: 'failed', error })
      .where(and(eq(d.status, 'building'), lt(d.createdAt, before)))
      .returning({ id: d.id });
    return rows.length;
  }
}
