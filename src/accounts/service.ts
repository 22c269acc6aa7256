// The accounts surface: principals, keys, workspaces, groups. Each change is audited in its
// transaction (DESIGN §2) and drops cached credentials.
import type { CredentialResolver } from '../core/identity/index.ts';
import type { GroupStore } from '../core/identity/index.ts';
import type { PrincipalChanges, PrincipalStore, StoredKey } from '../core/identity/index.ts';
import { isAdmin, type Principal, type PrincipalKind } from '../core/identity/index.ts';
import type { WorkspaceStore } from '../core/identity/index.ts';
import { isUniqueViolation } from '../core/db/index.ts';
import { validBody } from '../core/http/index.ts';
import { ProblemError, forbidden, invalidQuery, notFound } from '../core/http/index.ts';
import { isUuid } from '../core/lib/index.ts';
import { validators } from './schema.ts';
import type { Database, Orm } from '../core/db/index.ts';
import { bumpIndexVersion } from '../core/definitions/index.ts';
import { recordChange } from '../audit/index.ts';
import { principalJson } from './json.ts';
import type { IndexPublisher } from '../core/index-channels/index.ts';

export interface AccountDeps {
  db: Database;
  principals: PrincipalStore;
  workspaces: WorkspaceStore;
  groups: GroupStore;
  credentials: CredentialResolver;
  /** Told after a change to a service account, which the definition index judges code approvals by. */
  publisher: IndexPublisher;
}

type AccountKind = Exclude<PrincipalKind, 'SYSTEM'>;

export class AccountService {
  constructor(private readonly deps: AccountDeps) {}

  async createUser(actor: Principal, rawBody: unknown): Promise<Principal> {
    const body = validBody(rawBody, validators.userCreate);
    const workspaceIds = await this.workspaceIds(body.workspaceIds);
    try {
      return await this.deps.principals.create(
        { kind: 'USER', name: body.name, email: body.email, roles: body.roles, platformAccess: body.platformAccess, active: true, workspaceIds },
        (q, created) => this.audit(q, actor, 'create', created, accountDetails(created)),
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw new ProblemError(409, 'CONFLICT', `A user with email ${body.email} exists`);
      throw error;
    }
  }

  async createServiceAccount(actor: Principal, rawBody: unknown): Promise<Principal> {
    const body = validBody(rawBody, validators.serviceAccountCreate);
    const workspaceIds = await this.workspaceIds(body.workspaceIds);
    return this.deps.principals.create(
      { kind: 'SERVICE_ACCOUNT', name: body.name, roles: body.roles, platformAccess: body.platformAccess, active: body.active ?? true, workspaceIds },
      (q, created) => this.audit(q, actor, 'create', created, accountDetails(created)),
    );
  }

  async get(kind: AccountKind, id: string): Promise<Principal> {
    const principal = await this.deps.principals.get(id);
    if (!principal || principal.kind !== kind) throw notFound(kind === 'USER' ? 'User' : 'Service account');
    return principal;
  }

  async updateUser(actor: Principal, id: string, rawBody: unknown): Promise<Principal> {
    const body = validBody(rawBody, validators.userUpdate);
    await this.get('USER', id);
    const { status, workspaceIds, ...rest } = body;
    return this.update(actor, id, { ...rest, ...(status ? { active: status === 'ACTIVE' } : {}), ...(workspaceIds ? { workspaceIds: await this.workspaceIds(workspaceIds) } : {}) });
  }

  async updateServiceAccount(actor: Principal, id: string, rawBody: unknown): Promise<Principal> {
    const body = validBody(rawBody, validators.serviceAccountUpdate);
    await this.get('SERVICE_ACCOUNT', id);
    const { workspaceIds, ...rest } = body;
    const changes = { ...rest, ...(workspaceIds ? { workspaceIds: await this.workspaceIds(workspaceIds) } : {}) };
    // Which code may run as the account depends on its roles and workspaces (DESIGN §8), and its
    // status on whether anything runs: the definition index is judged again, from this commit on.
    let indexVersion: number | null = null;
    const touchesExecution = ['roles', 'workspaceIds', 'active', 'platformAccess'].some((field) => field in changes);
    const updated = await this.update(actor, id, changes, touchesExecution ? async (q) => void (indexVersion = await bumpIndexVersion(this.deps.db, q)) : undefined);
    if (indexVersion !== null) await this.deps.publisher.published(indexVersion);
    return updated;
  }

  /** Applies the changes; a change to what the record shows is audited with its fields before and after. */
  private async update(actor: Principal, id: string, changes: PrincipalChanges, within?: (q: Orm) => Promise<void>): Promise<Principal> {
    const updated = await this.deps.principals.update(id, changes, async (q, { before, after }) => {
      const was: Record<string, unknown> = accountDetails(before);
      const is: Record<string, unknown> = accountDetails(after);
      const changed = Object.keys(is).filter((field) => JSON.stringify(was[field]) !== JSON.stringify(is[field]));
      if (changed.length > 0) {
        await this.audit(q, actor, 'update', after, {
          changed,
          before: Object.fromEntries(changed.map((field) => [field, was[field]])),
          after: Object.fromEntries(changed.map((field) => [field, is[field]])),
        });
      }
      await within?.(q);
    });
    if (!updated) throw notFound('Principal');
    this.deps.credentials.invalidate();
    return updated;
  }

  /** The audit row of a change to a user or service account (no version: accounts have none). */
  private audit(q: Orm, actor: Principal, verb: 'create' | 'update', account: Principal, details: Record<string, unknown>): Promise<void> {
    const resourceType = account.kind === 'SERVICE_ACCOUNT' ? 'service-account' : 'user';
    return recordChange(this.deps.db, q, actor, { action: `${resourceType}.${verb}`, resourceType, resourceId: account.id, workspaceId: null, beforeVersion: null, afterVersion: null, details });
  }

  async createKey(caller: Principal, rawBody: unknown): Promise<StoredKey & { key: string }> {
    const body = validBody(rawBody, validators.apiKeyCreate);
    const principalId = body.principalId ?? caller.id;
    if (principalId !== caller.id) {
      if (!isAdmin(caller)) throw forbidden('Only INSTANCE_ADMIN may create keys for another principal');
      const target = await this.deps.principals.get(principalId);
      if (!target || target.kind === 'SYSTEM') {
        throw new ProblemError(422, 'VALIDATION_FAILED', 'No such principal', { errors: [{ pointer: '/principalId', message: 'No principal with this id' }] });
      }
    }
    const expiresAt = body.expiresAt ? new Date(body.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw new ProblemError(422, 'VALIDATION_FAILED', 'expiresAt is in the past', { errors: [{ pointer: '/expiresAt', message: 'Must be in the future' }] });
    }
    // The audit row names the key and whose it is; never the key or its digest.
    return this.deps.principals.createKey(principalId, body.name, expiresAt, {
      within: (q, stored) => recordChange(this.deps.db, q, caller, { ...KEY_CHANGE, action: 'api-key.create', resourceId: stored.id, details: keyDetails(stored) }),
    });
  }

  /** Whose keys the caller may list (`?principalId=`): its own, or anyone's for INSTANCE_ADMIN. */
  keyOwnerFor(caller: Principal, principalId: unknown): string {
    if (principalId !== undefined && (typeof principalId !== 'string' || !isUuid(principalId))) {
      throw invalidQuery('principalId must be one principal id (a UUID)', '/query/principalId');
    }
    const target = principalId?.toLowerCase() ?? caller.id;
    if (target !== caller.id && !isAdmin(caller)) throw forbidden('Only INSTANCE_ADMIN may list keys of another principal');
    return target;
  }

  async revokeKey(caller: Principal, id: string): Promise<void> {
    const key = await this.deps.principals.getKey(id);
    // Someone else's key is reported as absent, so key ids cannot be probed.
    if (!key || (key.principalId !== caller.id && !isAdmin(caller))) throw notFound('API key');
    // Revoking a revoked key changes nothing, and writes no audit row.
    await this.deps.principals.revokeKey(key.id, (q, revoked) =>
      recordChange(this.deps.db, q, caller, { ...KEY_CHANGE, action: 'api-key.revoke', resourceId: revoked.id, details: keyDetails(revoked) }));
    this.deps.credentials.invalidate();
  }

  async createWorkspace(actor: Principal, rawBody: unknown) {
    const body = validBody(rawBody, validators.workspaceCreate);
    return this.deps.workspaces.create(body.name, (q, created) =>
      recordChange(this.deps.db, q, actor, {
        action: 'workspace.create', resourceType: 'workspace', resourceId: created.id, workspaceId: created.id, beforeVersion: null, afterVersion: null, details: { name: created.name },
      }));
  }

  async createGroup(actor: Principal, rawBody: unknown) {
    const body = validBody(rawBody, validators.groupCreate);
    const missing: string[] = [];
    for (const id of body.memberIds) if (!(await this.deps.principals.get(id))) missing.push(id);
    if (missing.length > 0) {
      throw new ProblemError(422, 'VALIDATION_FAILED', 'Unknown member ids', {
        errors: missing.map((id) => ({ pointer: `/memberIds/${body.memberIds.indexOf(id)}`, message: 'No principal with this id' })),
      });
    }
    const group = await this.deps.groups.create(body.name, body.memberIds, (q, created) =>
      recordChange(this.deps.db, q, actor, {
        action: 'group.create', resourceType: 'group', resourceId: created.id, workspaceId: null, beforeVersion: null, afterVersion: null, details: { name: created.name, memberIds: created.memberIds },
      }));
    this.deps.credentials.invalidate(); // cached principals carry their group ids
    return group;
  }

  /** Given ids must all exist (422 otherwise); none given: the `default` workspace. */
  private async workspaceIds(given: string[] | undefined): Promise<string[]> {
    if (given === undefined) return [(await this.deps.workspaces.ensureDefault()).id];
    const missing = await this.deps.workspaces.missing(given);
    if (missing.length > 0) {
      throw new ProblemError(422, 'VALIDATION_FAILED', 'Unknown workspace ids', {
        errors: missing.map((id) => ({ pointer: `/workspaceIds/${given.indexOf(id)}`, message: 'No workspace with this id' })),
      });
    }
    return given;
  }
}

/** What an account's audit rows say of it: its record (principalJson) but for id and creation time. */
function accountDetails(account: Principal) {
  const { id: _id, createdAt: _createdAt, ...shown } = principalJson(account);
  return shown;
}

/** A key's audit rows are instance-wide (only INSTANCE_ADMIN reads them) and unversioned. */
const KEY_CHANGE = { resourceType: 'api-key', workspaceId: null, beforeVersion: null, afterVersion: null } as const;

/** Whose key and which one; never the key or its digest. */
const keyDetails = (key: StoredKey) => ({ principalId: key.principalId, name: key.name, expiresAt: key.expiresAt?.toISOString() ?? null });
