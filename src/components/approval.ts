// Approving a revision to run as the service accounts the approver's rights cover (./approval-rule.ts),
// inside the caller's transaction: recorded in the audit trail, and the definition index version
// moves so that runtimes pick it up. An approval the same principal gave already changes nothing.
import type { Principal } from '../core/identity/index.ts';
import { recordChange } from '../audit/index.ts';
import type { Database, Orm } from '../core/db/index.ts';
import { bumpIndexVersion, type Approval, type ApprovalStore } from '../core/definitions/index.ts';
import type { ComponentRecord } from './record.ts';

/** The new index version, or null when the approval was there already. */
export async function approveIn(
  db: Database,
  q: Orm,
  approvals: ApprovalStore,
  principal: Principal,
  approval: Approval,
  component: ComponentRecord,
  revisionId: string,
  details: Record<string, unknown>,
): Promise<number | null> {
  if (!(await approvals.record(q, revisionId, approval))) return null;
  await recordChange(db, q, principal, {
    action: 'revision.approve',
    resourceType: 'component',
    resourceId: component.id,
    workspaceId: component.workspaceId,
    beforeVersion: component.version,
    afterVersion: component.version,
    details: { revisionId, roles: approval.roles, workspaceIds: approval.workspaceIds, ...details },
  });
  return bumpIndexVersion(db, q);
}
