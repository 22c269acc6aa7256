// The revision an Endpoint bound to a component runs (spec, Versioning), for the definition index
// and contract validation: a pinned digest names that exact revision; otherwise lowcode and
// json-validator follow the latest active revision and node runs its selected ready revision.
import { eq } from 'drizzle-orm';
import type { Database, Orm } from '../core/db/index.ts';
import type { ComponentRecord, RevisionRecord } from './record.ts';
import { RevisionStore } from './revisions.ts';
import { isUuid } from '../core/lib/index.ts';


export interface ResolvedRevision {
  component: ComponentRecord;
  revision: RevisionRecord;
}

/**
 * Inside a transaction (e.g. the active-revision hook) use this form: on SQLite a `db.read` there
 * would wait for the transaction that is waiting for it.
 *
 * A pinned digest resolves whatever the revision's status. For a node component only the selected
 * revision (`status === 'active'`) may run, so a caller serving invocations must check that.
 */
async function resolveRevisionIn(db: Database, q: Orm, componentId: string, digest?: string): Promise<ResolvedRevision | null> {
  if (!isUuid(componentId)) return null; // names nothing (and would upset Postgres' uuid columns)
  const { components: c } = db.t;
  const [component] = await q.select().from(c).where(eq(c.id, componentId));
  if (!component) return null;
  const revisions = new RevisionStore(db);
  if (digest !== undefined) {
    const revision = await revisions.byDigest(q, component, digest);
    return revision ? { component, revision } : null;
  }
  if (component.activeRevisionId === null) return null;
  const revision = await revisions.get(q, component, component.activeRevisionId);
  return revision ? { component, revision } : null;
}

/** resolveRevisionIn on its own read. */
export async function resolveRevision(db: Database, componentId: string, digest?: string): Promise<ResolvedRevision | null> {
  return db.read((q) => resolveRevisionIn(db, q, componentId, digest));
}
