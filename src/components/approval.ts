// Approval of a revision to run as an administrator service account (spec, Authentication rule 9),
// inside the caller's transaction: recorded in the audit trail, and the definition index version
// moves so that runtimes pick it up. Approving an approved revision changes nothing.
import { isAdmin, type Principal } from '../auth/roles.ts';
import { recordChange } from '../audit/record.ts';
import type { Database, Orm } from '../db/index.ts';
import { bumpIndexVersion } from '../endpoints/index-version.ts';
import type { ComponentRecord } from './record.ts';
import type { RevisionStore } from './revisions.ts';

/**
 * Whether what this principal saves or selects counts as approved: an INSTANCE_ADMIN acting on its
 * own credential. Never an Endpoint execution's (api.platform): code run as an administrator would
 * otherwise approve itself.
 */
export const approves = (principal: Principal): boolean => isAdmin(principal) && !principal.context?.delegation;

/** The new index version, or null when the revision was approved already. */
export async function approveIn(
  db: Database,
  q: Orm,
  revisions: RevisionStore,
  principal: Principal,
  component: ComponentRecord,
  revisionId: string,
  details: Record<string, unknown>,
): Promise<number | null> {
  if (!(await revisions.approve(q, revisionId, principal.id))) return null;
  await recordChange(db, q, principal, {
    action: 'revision.approve',
    resourceType: 'component',
    resourceId: component.id,
    workspaceId: component.workspaceId,
    beforeVersion: component.version,
    afterVersion: component.version,
    details: { revisionId, ...details },
  });
  return bumpIndexVersion(db, q);
}
