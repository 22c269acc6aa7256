// Making a revision the component's active one (DESIGN §7, §9): every other active revision is
// superseded, the Endpoint side is told inside the same transaction (it re-validates Endpoints
// bound to latest), and the definition index version is bumped there too. The caller publishes
// the returned version after commit.
import type { Database, Orm } from '../core/db/index.ts';
import { bumpIndexVersion } from '../core/definitions/index.ts';
import type { ComponentRecord, RevisionRecord } from './record.ts';
import type { RevisionStore } from './revisions.ts';

/** Called inside the transaction that makes `revision` active (lowcode/json-validator) or selected (node). */
export type ActiveRevisionHook = (q: Orm, component: ComponentRecord, revision: RevisionRecord) => Promise<void>;

export interface Activated {
  revision: RevisionRecord;
  /** Revisions that stopped being active. */
  supersededIds: string[];
  indexVersion: number;
}

export class Activation {
  constructor(
    private readonly db: Database,
    private readonly revisions: RevisionStore,
    private readonly hook: ActiveRevisionHook,
  ) {}

  /**
   * Runs in the caller's transaction after it has updated the component row (which names the
   * revision active and, on Postgres, holds that row locked until commit, so concurrent
   * activations of one component take turns and exactly one revision ends up active).
   */
  async activated(q: Orm, component: ComponentRecord, revision: RevisionRecord): Promise<Activated> {
    const supersededIds = await this.revisions.supersedeActive(q, component.id, revision.id);
    if (revision.status !== 'active') await this.revisions.setStatus(q, revision.id, 'active');
    const active: RevisionRecord = { ...revision, status: 'active' };
    await this.hook(q, component, active);
    return { revision: active, supersededIds, indexVersion: await bumpIndexVersion(this.db, q) };
  }
}
