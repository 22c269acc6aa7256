// Choosing a service account for code to run as (an Endpoint's execution policy, an agent's
// serviceAccountUserId) is acting as it. Unless INSTANCE_ADMIN, whoever chooses it must hold every
// control-plane role it holds and belong to every workspace it belongs to (./coverage.ts);
// otherwise an ENDPOINT_ADMIN or AGENT_ADMIN could bind an administrator's account and run code as it.
import { rightsGap, type Rights } from './coverage.ts';
import { isAdmin, type Principal } from './roles.ts';

/** Null when `chooser` may choose `account` for a `resource` (Endpoint, agent) of `workspaceId`; else why not. */
export function actAsRefusal(chooser: Principal, account: Principal & Pick<Rights, 'agentWorkspaceIds'>, resource: { kind: string; workspaceId: string }): string | null {
  if (isAdmin(chooser)) return null;
  const gap = rightsGap(chooser, account);
  if (gap.roles.length > 0) {
    const owner = account.agentWorkspaceIds?.length ? ' (it owns agents: AGENT_ADMIN in their workspaces)' : '';
    return `Choosing this service account needs every role it holds${owner} (missing: ${gap.roles.join(', ')}) or INSTANCE_ADMIN`;
  }
  if (!account.workspaceIds.includes(resource.workspaceId)) return `The service account does not belong to the ${resource.kind}'s workspace`;
  if (gap.workspaceIds.length > 0) return 'The service account belongs to workspaces you do not: choosing it needs INSTANCE_ADMIN';
  return null;
}
