// Which revision an Endpoint binding runs (spec, Versioning): a pinned digest names exactly one;
// otherwise lowcode/json-validator follow the latest active revision and node runs its selected
// ready revision. As a service account, only a revision approved for it runs (components'
// revisionToRun). Reads go through the caller's handle so they can join its transaction.
import { and, desc, eq, ne } from 'drizzle-orm';
import { type Database, type Orm, lockRow } from '../db/index.ts';
import type { Rights } from '../identity/index.ts';
import { ApprovalStore } from './approvals.ts';
import { revisionToRun } from './approval-rule.ts';

export type ComponentKind = 'lowcode' | 'node' | 'json-validator';

export interface ResolvedRevision {
  id: string;
  digest: string;
  content: Record<string, unknown>;
}

/** What contract validation needs to know about a bound component. */
export interface ComponentLookup {
  /** The component (null when absent) and the revision a binding runs: pinned digest, else latest active / selected ready. */
  resolve(q: Orm, componentId: string, digest: string | undefined): Promise<{ component: { id: string; kind: ComponentKind; workspaceId: string }; revision: ResolvedRevision | null } | null>;
  /** Whether a digest names a revision of the component. */
  hasDigest(q: Orm, componentId: string, digest: string, workspaceId?: string): Promise<boolean>;
  /** Inside a write that binds the component: a concurrent DELETE waits for it, then sees it used. */
  hold(q: Orm, componentId: string): Promise<void>;
  /** The id of the revision the binding runs as a service account with these rights; null when none is approved for it. */
  revisionAs(q: Orm, componentId: string, digest: string | undefined, account: Rights): Promise<string | null>;
}


export interface BoundRevision extends ResolvedRevision {
  number: number;
}

export interface BoundComponent {
  component: { id: string; kind: ComponentKind; workspaceId: string; name: string };
  revision: BoundRevision | null;
}

export class TableComponentLookup implements ComponentLookup {
  constructor(private readonly db: Database) {}

  async resolve(q: Orm, componentId: string, digest: string | undefined): Promise<BoundComponent | null> {
    const { components, componentRevisions } = this.db.t;
    await this.hold(q, componentId);
    const [component] = await q.select().from(components).where(eq(components.id, componentId));
    if (!component) return null;
    let revision: Database['t']['componentRevisions']['$inferSelect'] | undefined;
    if (digest && component.kind === 'node') {
      // A node revision runs only once deployed and activated (DESIGN §7: a ready revision is not
      // used until activated): a pinned one must be, or have been, the selected revision. The same
      // code saved again later has the same digest but is pending: it never takes the pin's place.
      const { deployments } = this.db.t;
      [revision] = (await q
        .select({ row: componentRevisions })
        .from(componentRevisions)
        .innerJoin(deployments, and(eq(deployments.revisionId, componentRevisions.id), eq(deployments.status, 'ready')))
        .where(and(eq(componentRevisions.componentId, componentId), eq(componentRevisions.digest, digest), ne(componentRevisions.status, 'pending')))
        .orderBy(desc(componentRevisions.number))
        .limit(1)).map((r) => r.row);
    } else {
      const where = digest
        ? and(eq(componentRevisions.componentId, componentId), eq(componentRevisions.digest, digest))
        : component.activeRevisionId
          ? eq(componentRevisions.id, component.activeRevisionId)
          : undefined;
      [revision] = where ? await q.select().from(componentRevisions).where(where).orderBy(desc(componentRevisions.number)).limit(1) : [];
    }
    return {
      component: { id: component.id, kind: component.kind, workspaceId: component.workspaceId, name: component.name },
      revision: revision ? boundRevision(revision) : null,
    };
  }

  /**
   * The id of the revision a binding runs as a service account with these rights, or null when
   * none is approved for it (or nothing is ready, or the component is absent).
   */
  async revisionAs(q: Orm, componentId: string, digest: string | undefined, account: Rights): Promise<string | null> {
    const bound = await this.resolve(q, componentId, digest);
    if (!bound) return null;
    const approved = (await new ApprovalStore(this.db).ofComponents(q, [componentId])).get(componentId) ?? [];
    return revisionToRun({ kind: bound.component.kind, pinnedDigest: digest, bound: bound.revision, approved, account });
  }

  async hold(q: Orm, componentId: string): Promise<void> {
    await lockRow(this.db, q, 'components', componentId, 'share');
  }

  /**
   * Whether the component has a revision with this digest; with `workspaceId`, only a component
   * of that workspace counts (another workspace's components are unknown, digests included).
   */
  async hasDigest(q: Orm, componentId: string, digest: string, workspaceId?: string): Promise<boolean> {
    const { componentRevisions, components } = this.db.t;
    const rows = await q
      .select({ id: componentRevisions.id })
      .from(componentRevisions)
      .innerJoin(components, eq(components.id, componentRevisions.componentId))
      .where(and(
        eq(componentRevisions.componentId, componentId),
        eq(componentRevisions.digest, digest),
        ...(workspaceId === undefined ? [] : [eq(components.workspaceId, workspaceId)]),
      ))
      .limit(1);
    return rows.length > 0;
  }
}

/** A revision row as a binding sees it. */
export const boundRevision = (row: Database['t']['componentRevisions']['$inferSelect']): BoundRevision => ({
  id: row.id,
  number: row.number,
  digest: row.digest,
  content: row.content,
});
