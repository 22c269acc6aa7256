// JSON shapes of principals, keys and groups on the accounts surface (DESIGN §2).
import type { Principal } from '../core/identity/index.ts';
import type { StoredKey } from '../core/identity/index.ts';
import type { Group } from '../core/identity/index.ts';

export function principalJson(p: Principal) {
  const base = {
    id: p.id,
    kind: p.kind,
    name: p.name,
    ...(p.kind === 'USER' ? { email: p.email } : {}),
    roles: p.roles,
    platformAccess: p.platformAccess,
  };
  const state = p.kind === 'SERVICE_ACCOUNT' ? { active: p.active } : { status: p.active ? 'ACTIVE' : 'DISABLED' };
  return { ...base, ...state, workspaceIds: p.workspaceIds, createdAt: p.createdAt.toISOString() };
}

export const keyJson = (k: StoredKey) => ({
  id: k.id,
  principalId: k.principalId,
  name: k.name,
  expiresAt: k.expiresAt?.toISOString() ?? null,
  revokedAt: k.revokedAt?.toISOString() ?? null,
  createdAt: k.createdAt.toISOString(),
});

export const groupJson = (g: Group) => ({ id: g.id, name: g.name, memberIds: g.memberIds, createdAt: g.createdAt.toISOString() });
