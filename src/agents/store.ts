// Agent rows: insert, read, compare-and-set update, delete. Writes run in the caller's transaction,
// which records the change in the audit trail beside them.
import { and, eq } from 'drizzle-orm';
import type { Database, Orm } from '../core/db/index.ts';
import type { AgentRecord } from './record.ts';
import { isUuid } from '../core/lib/index.ts';

export type AgentChanges = Partial<Pick<AgentRecord, 'name' | 'desc' | 'status' | 'ownerId' | 'ownerType' | 'serviceAccountUserId' | 'metadata' | 'config' | 'policy'>>;

export class AgentStore {
  constructor(private readonly db: Database) {}

  async insert(q: Orm, record: AgentRecord): Promise<void> {
    await q.insert(this.db.t.agents).values(record);
  }

  async get(id: string): Promise<AgentRecord | null> {
    if (!isUuid(id)) return null;
    const { agents } = this.db.t;
    const rows = await this.db.read((q) => q.select().from(agents).where(eq(agents.id, id)));
    return (rows[0] as AgentRecord | undefined) ?? null;
  }

  /**
   * Applies `changes` only if the stored version is still `expectedVersion`, bumping it by one,
   * in a single statement: of any number of concurrent updates from one version, one wins.
   */
  async compareAndSet(q: Orm, id: string, expectedVersion: number, changes: AgentChanges): Promise<AgentRecord | null> {
    const { agents } = this.db.t;
    const rows = await q
      .update(agents)
      .set({ ...changes, version: expectedVersion + 1, updatedAt: new Date() })
      .where(and(eq(agents.id, id), eq(agents.version, expectedVersion)))
      .returning();
    return (rows[0] as AgentRecord | undefined) ?? null;
  }

  /** Deletes the agent (only at `version`, when given); the version deleted, or null when nothing was. */
  async delete(q: Orm, id: string, version?: number): Promise<number | null> {
    const { agents } = this.db.t;
    const where = version === undefined ? eq(agents.id, id) : and(eq(agents.id, id), eq(agents.version, version));
    const rows = await q.delete(agents).where(where).returning({ version: agents.version });
    return rows[0]?.version ?? null;
  }
}
