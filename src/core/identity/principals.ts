// Principals (users, service accounts, the System authority), their workspaces, groups and keys.
import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { Database, Orm, Tables } from '../db/index.ts';
import { ProblemError } from '../http/index.ts';
import { generateApiKey, hashApiKey } from './api-keys.ts';
import type { Principal, PrincipalKind, Role } from './roles.ts';
import { isUuid } from '../lib/index.ts';
import { ownedAgentWorkspaces } from './ownership.ts';
import { lockRow } from '../db/index.ts';

export interface NewPrincipal {
  kind: Exclude<PrincipalKind, 'SYSTEM'>;
  name: string;
  email?: string | null;
  roles: Role[];
  platformAccess: boolean;
  active: boolean;
  workspaceIds: string[];
}

export interface PrincipalChanges {
  name?: string;
  roles?: Role[];
  platformAccess?: boolean;
  active?: boolean;
  workspaceIds?: string[];
}

export interface StoredKey {
  id: string;
  principalId: string;
  name: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

export class PrincipalStore {
  constructor(private readonly db: Database) {}

  get(id: string): Promise<Principal | null> {
    return this.db.read((q) => loadPrincipal(this.db, q, id));
  }

  /** Principals by id (absent ids are left out), read set-wise. */
  many(ids: readonly string[]): Promise<Map<string, Principal>> {
    return this.db.read((q) => loadPrincipals(this.db, q, ids));
  }

  /** The workspaces of the agents it owns, itself or through its groups (./ownership.ts). */
  async agentWorkspaces(id: string): Promise<string[]> {
    return (await this.db.read((q) => ownedAgentWorkspaces(this.db, q, [id]))).get(id) ?? [];
  }

  /** `within` runs in the same transaction once the principal is stored (the audit row). */
  async create(input: NewPrincipal, within?: (q: Orm, created: Principal) => Promise<void>): Promise<Principal> {
    const { principals } = this.db.t;
    const id = crypto.randomUUID();
    return this.db.write(async (q) => {
      const now = new Date();
      await q.insert(principals).values({
        id,
        kind: input.kind,
        name: input.name,
        email: input.email ?? null,
        roles: input.roles,
        platformAccess: input.platformAccess,
        active: input.active,
        createdAt: now,
        updatedAt: now,
      });
      await this.setMemberships(q, id, input.workspaceIds);
      const created = (await loadPrincipal(this.db, q, id))!;
      await within?.(q, created);
      return created;
    });
  }

  /**
   * `within` runs in the same transaction once the principal is changed (not when it is absent),
   * with the principal as it was and as it is: the row is locked from the first read on, so no
   * concurrent change comes between them.
   */
  async update(id: string, changes: PrincipalChanges, within?: (q: Orm, change: { before: Principal; after: Principal }) => Promise<void>): Promise<Principal | null> {
    const { principals } = this.db.t;
    if (!isUuid(id)) return null;
    return this.db.write(async (q) => {
      await lockRow(this.db, q, 'principals', id.toLowerCase(), 'update');
      const before = await loadPrincipal(this.db, q, id);
      if (!before) return null;
      const set: Partial<typeof principals.$inferInsert> = { updatedAt: new Date() };
      if (changes.name !== undefined) set.name = changes.name;
      if (changes.roles !== undefined) set.roles = changes.roles;
      if (changes.platformAccess !== undefined) set.platformAccess = changes.platformAccess;
      if (changes.active !== undefined) set.active = changes.active;
      await q.update(principals).set(set).where(eq(principals.id, before.id));
      if (changes.workspaceIds !== undefined) await this.setMemberships(q, before.id, changes.workspaceIds);
      const after = (await loadPrincipal(this.db, q, before.id))!;
      await within?.(q, { before, after });
      return after;
    });
  }

  /** Ensures a principal with a fixed id exists (bootstrap admin, System authority). */
  async ensure(id: string, input: NewPrincipal | (Omit<NewPrincipal, 'kind'> & { kind: 'SYSTEM' })): Promise<void> {
    const { principals } = this.db.t;
    await this.db.write(async (q) => {
      const now = new Date();
      const inserted = await q
        .insert(principals)
        .values({ id, kind: input.kind, name: input.name, email: input.email ?? null, roles: input.roles, platformAccess: input.platformAccess, active: input.active, createdAt: now, updatedAt: now })
        .onConflictDoNothing()
        .returning({ id: principals.id });
      if (inserted.length > 0) await this.setMemberships(q, id, input.workspaceIds);
    });
  }

  private async setMemberships(q: Orm, principalId: string, workspaceIds: string[]): Promise<void> {
    const { memberships } = this.db.t;
    await q.delete(memberships).where(eq(memberships.principalId, principalId));
    const unique = [...new Set(workspaceIds)];
    if (unique.length > 0) {
      await q.insert(memberships).values(unique.map((workspaceId, position) => ({ principalId, workspaceId, position })));
    }
  }

  // --- API keys -------------------------------------------------------------------------------

  /**
   * Creates a generated key, or registers `given` as is (bootstrap; idempotent). `within` runs in
   * the same transaction once a new key is stored (the audit row); never with the key itself.
   */
  async createKey(principalId: string, name: string, expiresAt: Date | null, options: { given?: string; within?: (q: Orm, stored: StoredKey) => Promise<void> } = {}): Promise<StoredKey & { key: string }> {
    const { apiKeys } = this.db.t;
    const { given, within } = options;
    const key = given ?? generateApiKey();
    const row = { id: crypto.randomUUID(), principalId, name, keyHash: hashApiKey(key), expiresAt, revokedAt: null, lastUsedAt: null, createdAt: new Date() };
    const inserted = await this.db.write(async (q) => {
      const rows = await q.insert(apiKeys).values(row).onConflictDoNothing().returning();
      if (rows[0]) await within?.(q, toStoredKey(rows[0]));
      return rows;
    });
    if (inserted.length === 0 && !given) throw new ProblemError(409, 'CONFLICT', 'Key collision; retry');
    const stored = inserted[0] ?? (await this.db.read((q) => q.select().from(apiKeys).where(eq(apiKeys.keyHash, row.keyHash))))[0]!;
    return { ...toStoredKey(stored), key };
  }

  async getKey(id: string): Promise<StoredKey | null> {
    if (!isUuid(id)) return null;
    const { apiKeys } = this.db.t;
    const rows = await this.db.read((q) => q.select().from(apiKeys).where(eq(apiKeys.id, id)));
    return rows[0] ? toStoredKey(rows[0]) : null;
  }

  /** Revokes a key not revoked yet; `within` runs in the same transaction when it did (the audit row). */
  async revokeKey(id: string, within?: (q: Orm, revoked: StoredKey) => Promise<void>): Promise<boolean> {
    const { apiKeys } = this.db.t;
    return this.db.write(async (q) => {
      const rows = await q.update(apiKeys).set({ revokedAt: new Date() }).where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))).returning();
      if (!rows[0]) return false;
      await within?.(q, toStoredKey(rows[0]));
      return true;
    });
  }

  /** The key row for a digest (revoked and expired included: the caller decides). */
  async keyByHash(keyHash: string): Promise<{ id: string; principalId: string; keyHash: string; expiresAt: Date | null; revokedAt: Date | null } | null> {
    const { apiKeys } = this.db.t;
    const rows = await this.db.read((q) =>
      q.select({ id: apiKeys.id, principalId: apiKeys.principalId, keyHash: apiKeys.keyHash, expiresAt: apiKeys.expiresAt, revokedAt: apiKeys.revokedAt })
        .from(apiKeys)
        .where(eq(apiKeys.keyHash, keyHash)),
    );
    return rows[0] ?? null;
  }

  /** Records key use in one statement; called in batches off the request path. */
  async touchKeys(ids: string[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    const { apiKeys } = this.db.t;
    await this.db.read((q) => q.update(apiKeys).set({ lastUsedAt: at }).where(inArray(apiKeys.id, ids)));
  }
}

/** Kinds, roles and workspaces of these principals (absent ids are left out), read set-wise. */
export async function principalRights(db: Database, q: Orm, ids: readonly string[]): Promise<Map<string, { kind: PrincipalKind; roles: Role[]; workspaceIds: string[]; agentWorkspaceIds?: string[] }>> {
  const wanted = [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];
  const out = new Map<string, { kind: PrincipalKind; roles: Role[]; workspaceIds: string[]; agentWorkspaceIds?: string[] }>();
  const { principals, memberships } = db.t;
  for (let i = 0; i < wanted.length; i += RIGHTS_CHUNK) {
    const some = wanted.slice(i, i + RIGHTS_CHUNK);
    for (const row of await q.select({ id: principals.id, kind: principals.kind, roles: principals.roles }).from(principals).where(inArray(principals.id, some))) {
      out.set(row.id, { kind: row.kind, roles: row.roles as Role[], workspaceIds: [] });
    }
    const rows = await q.select({ principalId: memberships.principalId, workspaceId: memberships.workspaceId }).from(memberships).where(inArray(memberships.principalId, some)).orderBy(asc(memberships.position));
    for (const row of rows) out.get(row.principalId)?.workspaceIds.push(row.workspaceId);
  }
  for (const [id, agentWorkspaceIds] of await ownedAgentWorkspaces(db, q, [...out.keys()])) {
    const rights = out.get(id);
    if (rights) rights.agentWorkspaceIds = agentWorkspaceIds;
  }
  return out;
}

/** Ids per IN list in principalRights: below both databases' parameter limits. */
const RIGHTS_CHUNK = 500;

/** Loads a principal with its workspaces and groups inside an existing read or transaction. */
export async function loadPrincipal(db: Database, q: Orm, given: string): Promise<Principal | null> {
  if (!isUuid(given)) return null;
  const id = given.toLowerCase(); // a JWT's `sub` may spell it in capitals
  const { principals, memberships, groupMembers } = db.t;
  const rows = await q.select().from(principals).where(eq(principals.id, id));
  const row = rows[0];
  if (!row) return null;
  const [ws, gs] = await Promise.all([
    q.select({ id: memberships.workspaceId }).from(memberships).where(eq(memberships.principalId, id)).orderBy(asc(memberships.position)),
    q.select({ id: groupMembers.groupId }).from(groupMembers).where(eq(groupMembers.principalId, id)),
  ]);
  return toPrincipal(row, ws.map((w) => w.id), gs.map((g) => g.id));
}

/** Principals by id (absent ids are left out) with their workspaces and groups, read set-wise. */
async function loadPrincipals(db: Database, q: Orm, given: readonly string[]): Promise<Map<string, Principal>> {
  const wanted = [...new Set(given.filter(isUuid).map((id) => id.toLowerCase()))];
  const { principals, memberships, groupMembers } = db.t;
  const out = new Map<string, Principal>();
  for (let i = 0; i < wanted.length; i += RIGHTS_CHUNK) {
    const some = wanted.slice(i, i + RIGHTS_CHUNK);
    const [rows, ws, gs] = await Promise.all([
      q.select().from(principals).where(inArray(principals.id, some)),
      q.select({ principalId: memberships.principalId, id: memberships.workspaceId }).from(memberships).where(inArray(memberships.principalId, some)).orderBy(asc(memberships.position)),
      q.select({ principalId: groupMembers.principalId, id: groupMembers.groupId }).from(groupMembers).where(inArray(groupMembers.principalId, some)),
    ]);
    for (const row of rows) out.set(row.id, toPrincipal(row, [], []));
    for (const w of ws) out.get(w.principalId)?.workspaceIds.push(w.id);
    for (const g of gs) out.get(g.principalId)?.groupIds.push(g.id);
  }
  return out;
}

function toPrincipal(row: Tables['principals']['$inferSelect'], workspaceIds: string[], groupIds: string[]): Principal {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    email: row.email,
    roles: row.roles as Role[],
    platformAccess: row.platformAccess,
    active: row.active,
    workspaceIds,
    groupIds,
    createdAt: row.createdAt,
  };
}

function toStoredKey(row: { id: string; principalId: string; name: string; expiresAt: Date | null; revokedAt: Date | null; createdAt: Date }): StoredKey {
  return { id: row.id, principalId: row.principalId, name: row.name, expiresAt: row.expiresAt, revokedAt: row.revokedAt, createdAt: row.createdAt };
}
