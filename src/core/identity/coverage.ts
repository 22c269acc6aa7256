// Whether one principal's rights cover another's: every role (ENDPOINT_INVOKE aside; INSTANCE_ADMIN
// counts as holding all) and every workspace, and for an account that owns agents (./ownership.ts)
// AGENT_ADMIN in each of their workspaces, which may do what an owner does. Choosing a service account to run code as
// (./act-as.ts) and approving code to run as one (../definitions/approval-rule.ts) both ask it.
import type { Role } from './roles.ts';

/** Roles and workspace memberships: a principal's now, or a snapshot an approval recorded. */
export interface Rights {
  roles: readonly string[];
  workspaceIds: readonly string[];
  /**
   * An account's only (an approval's snapshot has none): the workspaces of the agents it owns,
   * itself or through a group. Code running as it may change those agents.
   */
  agentWorkspaceIds?: readonly string[];
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
  const roles = account.roles.filter((role) => role !== 'ENDPOINT_INVOKE' && !holder.roles.includes(role)) as Role[];
  const agentWorkspaces = account.agentWorkspaceIds ?? [];
  if (agentWorkspaces.length > 0 && !holder.roles.includes('AGENT_ADMIN') && !roles.includes('AGENT_ADMIN')) roles.push('AGENT_ADMIN');
  return {
    roles,
    workspaceIds: [...new Set([...account.workspaceIds, ...agentWorkspaces])].filter((w) => !holder.workspaceIds.includes(w)),
  };
}

export function covers(holder: Rights, account: Rights): boolean {
  const gap = rightsGap(holder, account);
  return gap.roles.length === 0 && gap.workspaceIds.length === 0;
}
