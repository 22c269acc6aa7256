// The component side of every active Endpoint, read for an index build in a few set-wise queries
// (components, their active revisions, pinned digests, ready builds, approvals) instead of a few
// queries per Endpoint: a build runs on every published change, so its cost grows with each one.
// Resolution follows the same rules as TableComponentLookup.resolve (spec, Versioning).
import { and, desc, eq, inArray, isNotNull } from 'drizzle-orm';
import type { Database, Orm } from '../db/index.ts';
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
  private readonly newestApprovedOf = new Map<string, RevisionRow>();


  /**
   * Reads what `bindings` need. `approvalsFor` names the components whose newest approved revision
   * may be asked for (those of Endpoints executing as a service account).
   */
  static async load(db: Database, q: Orm, bindings: readonly Binding[], approvalsFor: readonly string[], chunk = CHUNK): Promise<BindingsReader> {
    const reader = new BindingsReader();
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

    const approvable = [...new Set(approvalsFor)].filter((id) => reader.components.get(id)?.kind === 'lowcode');
    const approved = await inChunks(approvable, chunk, (some) => q.select().from(r).where(and(inArray(r.componentId, some), isNotNull(r.approvedBy))).orderBy(desc(r.number)));
    for (const row of approved) if (!reader.newestApprovedOf.has(row.componentId)) reader.newestApprovedOf.set(row.componentId, row);
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

  /** Whether any revision with this digest is approved (equal digests, equal content). */
  digestApproved(componentId: string, digest: string): boolean {
    return this.pinnedRevisions.get(componentId)?.some((row) => row.digest === digest && row.approvedBy !== null) ?? false;
  }

  /** The newest approved revision of a lowcode component named in `approvalsFor`. */
  newestApproved(componentId: string): BoundRevision | null {
    const row = this.newestApprovedOf.get(componentId);
    return row ? boundRevision(row) : null;
  }
}
