// Who may see and change an Agent (DESIGN §2, §4): 404 for the invisible, 403 for the visible but refused.
import { hasAnyRole, inWorkspace, isAdmin, type Principal } from '../core/identity/index.ts';
import { notFound, forbidden } from '../core/http/index.ts';
import type { AgentRecord } from './record.ts';

/** Visible: INSTANCE_ADMIN, or a member of the agent's workspace. */
export function assertVisible(principal: Principal, agent: AgentRecord | null): asserts agent is AgentRecord {
  if (!agent || !inWorkspace(principal, agent.workspaceId)) throw notFound('Agent');
}

export const isOwner = (principal: Principal, agent: AgentRecord): boolean =>
  agent.ownerId === principal.id ||
  (agent.ownerType === 'GROUP' && principal.groupIds.includes(agent.ownerId));

/** Reading an agent and its runs needs an agent role or ownership. */
export function assertCanRead(principal: Principal, agent: AgentRecord): void {
  if (isAdmin(principal) || isOwner(principal, agent) || hasAnyRole(principal, ['AGENT_ADMIN', 'AGENT_USER'])) return;
  throw forbidden('Reading agents needs AGENT_ADMIN, AGENT_USER or ownership');
}

/** Changing an agent: its owner (or a member of the owning group), an AGENT_ADMIN of its workspace, or INSTANCE_ADMIN. */
export function assertCanWrite(principal: Principal, agent: AgentRecord): void {
  if (isAdmin(principal) || isOwner(principal, agent) || principal.roles.includes('AGENT_ADMIN')) return;
  throw forbidden('Only the owner, an AGENT_ADMIN of the workspace or an INSTANCE_ADMIN may change this agent');
}
