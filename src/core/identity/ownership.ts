// Resource rights that are not roles: an agent's owner (a user or service account, or a member of
// the group that owns it) may change and run it like an AGENT_ADMIN of its workspace (DESIGN §4).
// Code running as a service account has those rights too (spec, Authentication rule 2), so
// choosing the account or approving code for it must cover them (./coverage.ts).
import { and, eq, inArray, ne } from 'drizzle-orm';
import type { Database, Orm } from '../db/index.ts';

/** Ids per IN list: below both databases' parameter limits. */
const CHUNK = 500;

/** For each principal, the workspaces of the agents it owns, itself or through its groups (none: absent). */
export async function ownedAgentWorkspaces(db: Database, q: Orm, ids: readonly string[]): Promise<Map<string, string[]>> {
  const { agents, groupMembers } = db.t;
  const out = new Map<string, Set<string>>();
  const add = (principalId: string, workspaceId: string) => {
    let set = out.get(principalId);
    if (!set) out.set(principalId, (set = new Set()));
    set.add(workspaceId);
  };
  const wanted = [...new Set(ids)];
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const some = wanted.slice(i, i + CHUNK);
    const direct = await q.select({ ownerId: agents.ownerId, workspaceId: agents.workspaceId }).from(agents).where(and(inArray(agents.ownerId, some), ne(agents.ownerType, 'GROUP')));
    for (const row of direct) add(row.ownerId, row.workspaceId);
    const memberships = await q.select({ groupId: groupMembers.groupId, principalId: groupMembers.principalId }).from(groupMembers).where(inArray(groupMembers.principalId, some));
    if (memberships.length === 0) continue;
    const groups = [...new Set(memberships.map((m) => m.groupId))];
    const owned = await q.select({ ownerId: agents.ownerId, workspaceId: agents.workspaceId }).from(agents).where(and(eq(agents.ownerType, 'GROUP'), inArray(agents.ownerId, groups)));
    for (const row of owned) for (const m of memberships) if (m.groupId === row.ownerId) add(m.principalId, row.workspaceId);
  }
  return new Map([...out].map(([id, set]) => [id, [...set].sort()]));
}
