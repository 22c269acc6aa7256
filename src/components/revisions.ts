// Revision rows: immutable content, numbered per component; only the status ever changes.
import { and, desc, eq, inArray, ne } from 'drizzle-orm';
import type { Database, Orm, Tables } from '../core/db/index.ts';
import { contentFromStored, storedContent } from './content.ts';
import type { ComponentKind, RevisionRecord, RevisionStatus } from './record.ts';

type RevisionRow = Tables['componentRevisions']['$inferSelect'];

const fromRow = (row: RevisionRow, kind: ComponentKind): RevisionRecord => ({
  id: row.id,
  componentId: row.componentId,
  number: row.number,
  digest: row.digest,
  status: row.status,
  content: contentFromStored(kind, row.content),
  createdBy: row.createdBy,
  createdAt: row.createdAt,
});

export class RevisionStore {
  constructor(private readonly db: Database) {}

  async insert(q: Orm, revision: RevisionRecord): Promise<void> {
    await q.insert(this.db.t.componentRevisions).values({ ...revision, content: storedContent(revision.content) });
  }

  async get(q: Orm, component: { id: string; kind: ComponentKind }, revisionId: string): Promise<RevisionRecord | null> {
    const { componentRevisions: r } = this.db.t;
    const rows = await q.select().from(r).where(and(eq(r.componentId, component.id), eq(r.id, revisionId)));
    return rows[0] ? fromRow(rows[0], component.kind) : null;
  }

  /** The revisions with these ids (any component), keyed by id; `kindOf` names each one's kind. */
  async byIds(q: Orm, ids: string[], kindOf: (componentId: string) => ComponentKind): Promise<Map<string, RevisionRecord>> {
    if (ids.length === 0) return new Map();
    const { componentRevisions: r } = this.db.t;
    const rows = await q.select().from(r).where(inArray(r.id, ids));
    return new Map(rows.map((row) => [row.id, fromRow(row, kindOf(row.componentId))]));
  }

  /** The highest-numbered revision with this digest (equal digests mean equal content). */
  async byDigest(q: Orm, component: { id: string; kind: ComponentKind }, digest: string): Promise<RevisionRecord | null> {
    const { componentRevisions: r } = this.db.t;
    const rows = await q.select().from(r).where(and(eq(r.componentId, component.id), eq(r.digest, digest))).orderBy(desc(r.number)).limit(1);
    return rows[0] ? fromRow(rows[0], component.kind) : null;
  }

  /** The highest number so far (0 when there is none); read under the component row's lock. */
  async lastNumber(q: Orm, componentId: string): Promise<number> {
    const { componentRevisions: r } = this.db.t;
    const rows = await q.select({ number: r.number }).from(r).where(eq(r.componentId, componentId)).orderBy(desc(r.number)).limit(1);
    return rows[0]?.number ?? 0;
  }

  /** Supersedes every active revision of the component but `exceptId`; returns the ids it changed. */
  async supersedeActive(q: Orm, componentId: string, exceptId: string): Promise<string[]> {
    const { componentRevisions: r } = this.db.t;
    const rows = await q
      .update(r)
      .set({ status: 'superseded' })
      .where(and(eq(r.componentId, componentId), eq(r.status, 'active'), ne(r.id, exceptId)))
      .returning({ id: r.id });
    return rows.map((row) => row.id);
  }

  async setStatus(q: Orm, revisionId: string, status: RevisionStatus): Promise<void> {
    const { componentRevisions: r } = this.db.t;
    await q.update(r).set({ status }).where(eq(r.id, revisionId));
  }
}
