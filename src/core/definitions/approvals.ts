// Approval rows (./approval-rule.ts): appended, never changed; removed with their revision.
import { asc, eq, inArray } from 'drizzle-orm';
import { covers } from '../identity/index.ts';
import type { Database, Orm } from '../db/index.ts';
import type { Approval, ApprovedRevision } from './approval-rule.ts';

type ApprovalRow = Database['t']['revisionApprovals']['$inferSelect'];

const fromRow = (row: Pick<ApprovalRow, 'principalId' | 'roles' | 'workspaceIds' | 'approvedAt'>): Approval => ({
  principalId: row.principalId,
  roles: row.roles,
  workspaceIds: row.workspaceIds,
  approvedAt: row.approvedAt,
});

/** Ids per IN list: far below SQLite's bound-parameter limit and Postgres' too. */
const CHUNK = 500;

export class ApprovalStore {
  constructor(private readonly db: Database) {}

  /**
   * Records an approval; false when one the same principal gave already covers it (approving
   * twice changes nothing). Callers hold the component row, so two of them take turns.
   */
  async record(q: Orm, revisionId: string, approval: Approval): Promise<boolean> {
    const earlier = await this.of(q, revisionId);
    if (earlier.some((a) => a.principalId === approval.principalId && covers(a, approval))) return false;
    await q.insert(this.db.t.revisionApprovals).values({ revisionId, ...approval });
    return true;
  }

  /** A revision's approvals, oldest first. */
  async of(q: Orm, revisionId: string): Promise<Approval[]> {
    const { revisionApprovals: a } = this.db.t;
    const rows = await q.select().from(a).where(eq(a.revisionId, revisionId)).orderBy(asc(a.seq));
    return rows.map(fromRow);
  }

  /** Every revision of these components that has approvals, with them (oldest first). */
  async ofComponents(q: Orm, componentIds: readonly string[]): Promise<Map<string, ApprovedRevision[]>> {
    const { revisionApprovals: a, componentRevisions: r } = this.db.t;
    const out = new Map<string, ApprovedRevision[]>();
    const unique = [...new Set(componentIds)];
    for (let i = 0; i < unique.length; i += CHUNK) {
      const rows = await q
        .select({ componentId: r.componentId, id: r.id, number: r.number, digest: r.digest, principalId: a.principalId, roles: a.roles, workspaceIds: a.workspaceIds, approvedAt: a.approvedAt })
        .from(a)
        .innerJoin(r, eq(r.id, a.revisionId))
        .where(inArray(r.componentId, unique.slice(i, i + CHUNK)))
        .orderBy(asc(a.seq));
      const byRevision = new Map<string, { componentId: string; revision: ApprovedRevision & { approvals: Approval[] } }>();
      for (const row of rows) {
        let entry = byRevision.get(row.id);
        if (!entry) byRevision.set(row.id, (entry = { componentId: row.componentId, revision: { id: row.id, number: row.number, digest: row.digest, approvals: [] } }));
        entry.revision.approvals.push(fromRow(row));
      }
      for (const { componentId, revision } of byRevision.values()) {
        const list = out.get(componentId);
        if (list) list.push(revision);
        else out.set(componentId, [revision]);
      }
    }
    return out;
  }
}
