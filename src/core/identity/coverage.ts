// Whether one principal's rights cover another's: every role (ENDPOINT_INVOKE aside; INSTANCE_ADMIN
// counts as holding all) and every workspace. Choosing a service account to run code as
// (./act-as.ts) and approving code to run as one (components/approval-rule.ts) both ask it.
import type { Role } from './roles.ts';

/** Roles and workspace memberships: a principal's now, or a snapshot an approval recorded. */
export interface Rights {
  roles: readonly string[];
  workspaceIds: readonly string[];
}

/** What `holder` lacks of `account`'s rights; both lists empty when it covers them. */
export interface RightsGap {
  roles: Role[];
  workspaceIds: string[];
}

/**
 * ENDPOINT_INVOKE grants nothing inside an execution (api.platform is the control plane), so it
 * is never asked of the holder.
 */
export function rightsGap(holder: Rights, account: Rights): RightsGap {
  if (holder.roles.includes('INSTANCE_ADMIN')) return { roles: [], workspaceIds: [] };
  return {
    roles: account.roles.filter((role) => role !== 'ENDPOINT_INVOKE' && !holder.roles.includes(role)) as Role[],
    workspaceIds: account.workspaceIds.filter((w) => !holder.workspaceIds.includes(w)),
  };
}

export function covers(holder: Rights, account: Rights): boolean {
  const gap = rightsGap(holder, account);
  return gap.roles.length === 0 && gap.workspaceIds.length === 0;
}
