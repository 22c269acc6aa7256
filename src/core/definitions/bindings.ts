// The component side of every active Endpoint, read for an index build in a few set-wise queries
// (components, their active revisions, pinned digests, ready builds, approvals) instead of a few
// queries per Endpoint: a build runs on every published change, so its cost grows with each one.
// Resolution follows the same rules as TableComponentLookup.resolve (spec, Versioning), and what
// runs as a service account those of TableComponentLookup.revisionAs (components' revisionToRun).
import { and, eq, inArray } from 'drizzle-orm';
import type { Database, Orm } from '../db/index.ts';
import type { Rights } from '../identity/index.ts';
import { ApprovalStore } from './approvals.ts';
import { revisionToRun, type ApprovedRevision } from './approval-rule.ts';
import { boundRevision, type BoundComponent, type BoundRevision } from './component-lookup.ts';

type RevisionRow = Database['t']['componentRevisions']['$inferSelect'];
type ComponentRow = Database['t']['components']['$inferSelect'];

/** Ids per IN list: far below SQLite's bound-parameter limit and Postgres' too. */
const CHUNK = 500;

async function inChunks<T>(ids: readonly string[], size: number, read: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += size) out.push(...(await read(ids.slice(i, i + size))));
  return out;
}

export interface Binding {
  componentId: string;
  digest?: string;
}

export class BindingsReader {
  private readonly components = new Map<string, ComponentRow>();
  private readonly byId = new Map<string, RevisionRow>();
  /** Revisions of pinned components, newest first per component. */
  private readonly pinnedRevisions = new Map<string, RevisionRow[]>();
  private readonly readyBuilds = new Set<string>();
  /** Revisions with approvals, of the components named in `approvalsFor`. */
  private readonly approved = new Map<string, ApprovedRevision[]>();

  private constructor(private readonly chunk: number) {}

  /**
   * Reads what `bindings` need. `approvalsFor` names the components that may run as a service
   * account (those of Endpoints executing as one): their approvals are read too.
   */
  static async load(db: Database, q: Orm, bindings: readonly Binding[], approvalsFor: readonly string[], chunk = CHUNK): Promise<BindingsReader> {
    const reader = new BindingsReader(chunk);
    const { components: c, componentRevisions: r, deployments: d } = db.t;
    const ids = [...new Set(bindings.map((b) => b.componentId))];
    for (const row of await inChunks(ids, chunk, (some) => q.select().from(c).where(inArray(c.id, some)))) reader.components.set(row.id, row);

    const active = [...new Set([...reader.components.values()].map((row) => row.activeRevisionId).filter((id): id is string => id !== null))];
    for (const row of await inChunks(active, chunk, (some) => q.select().from(r).where(inArray(r.id, some)))) reader.byId.set(row.id, row);

    const pinned = [...new Set(bindings.filter((b) => b.digest !== undefined).map((b) => b.componentId))];
    const digests = [...new Set(bindings.filter((b) => b.digest !== undefined).map((b) => b.digest!))];
    if (pinned.length > 0) {
      const rows = await inChunks(pinned, chunk, async (some) =>
        (await inChunks(digests, chunk, (these) => q.select().from(r).where(and(inArray(r.componentId, some), inArray(r.digest, these))))).sort((a, b) => b.number - a.number));
      for (const row of rows) (reader.pinnedRevisions.get(row.componentId) ?? reader.pinnedRevisions.set(row.componentId, []).get(row.componentId)!).push(row);
      const revisionIds = rows.map((row) => row.id);
      const ready = await inChunks(revisionIds, chunk, (some) => q.select({ id: d.revisionId }).from(d).where(and(inArray(d.revisionId, some), eq(d.status, 'ready'))));
      for (const row of ready) reader.readyBuilds.add(row.id);
    }

    const approvable = [...new Set(approvalsFor)].filter((id) => reader.components.has(id));
    for (const [componentId, revisions] of await new ApprovalStore(db).ofComponents(q, approvable)) reader.approved.set(componentId, revisions);
    return reader;
  }

  /** The component and the revision a binding runs, as TableComponentLookup.resolve answers. */
  resolve(binding: Binding): BoundComponent | null {
    const component = this.components.get(binding.componentId);
    if (!component) return null;
    let revision: RevisionRow | undefined;
    if (binding.digest !== undefined) {
      // Newest first. A node revision runs only once deployed and activated: a pinned one must be,
      // or have been, selected; the same code saved again later (pending) does not take its place.
      revision = this.pinnedRevisions.get(component.id)?.find((row) =>
        row.digest === binding.digest && (component.kind !== 'node' || (row.status !== 'pending' && this.readyBuilds.has(row.id))));
    } else if (component.activeRevisionId !== null) {
      revision = this.byId.get(component.activeRevisionId);
    }
    return {
      component: { id: component.id, kind: component.kind, workspaceId: component.workspaceId, name: component.name },
      revision: revision ? boundRevision(revision) : null,
    };
  }

  /**
   * The id of the revision a binding runs as a service account with these rights, or null when
   * none is approved for it; the component must be named in `approvalsFor`.
   */
  revisionAs(binding: Binding, account: Rights): string | null {
    const bound = this.resolve(binding);
    if (!bound) return null;
    const approved = this.approved.get(binding.componentId) ?? [];
    return revisionToRun({ kind: bound.component.kind, pinnedDigest: binding.digest, bound: bound.revision, approved, account });
  }

  /** Reads revisions that revisionAs chose and the reader does not hold yet (older lowcode ones). */
  async fetch(db: Database, q: Orm, ids: readonly string[]): Promise<void> {
    const { componentRevisions: r } = db.t;
    const missing = [...new Set(ids)].filter((id) => !this.byId.has(id));
    for (const row of await inChunks(missing, this.chunk, (some) => q.select().from(r).where(inArray(r.id, some)))) this.byId.set(row.id, row);
  }

  /** A revision the reader holds: an active one, or one read by fetch. */
  revision(id: string): BoundRevision | null {
    const row = this.byId.get(id);
    return row ? boundRevision(row) : null;
  }
}
