// Agent operations with their rules: visibility, ownership, lifecycle, references, optimistic locking;
// each change is audited in its transaction.
import type { Principal } from '../core/identity/index.ts';
import type { PrincipalStore } from '../core/identity/index.ts';
import type { GroupStore } from '../core/identity/index.ts';
import { ProblemError, notFound, type Violation } from '../core/http/index.ts';
import { validBody } from '../core/http/index.ts';
import { assertIfMatch, preconditionFailed } from '../core/http/index.ts';
import { inWorkspace, isAdmin } from '../core/identity/index.ts';
import { creationWorkspace, type WorkspaceStore } from '../core/identity/index.ts';
import { isUuid } from '../core/lib/index.ts';
import { actAsRefusal } from '../core/identity/index.ts';
import { agentCreateValidator, agentUpdateValidator, type AgentCreateBody, type AgentUpdateBody } from './schema.ts';
import { agentRuleViolations, stripIgnoredFields } from './rules.ts';
import { assertCanRead, assertCanWrite, assertVisible } from './access.ts';
import type { AgentChanges, AgentStore } from './store.ts';
import type { AgentRecord, OwnerType } from './record.ts';
import type { Database, Orm } from '../core/db/index.ts';
import { recordChange } from '../audit/index.ts';

export interface AgentServiceDeps {
  /** Every change commits in one transaction with its audit row. */
  db: Database;
  agents: AgentStore;
  principals: PrincipalStore;
  groups: GroupStore;
  workspaces: WorkspaceStore;
  enabledModels: readonly string[];
  /** MCP_ALLOW_HTTP_LOOPBACK: MCP urls may be http:// to loopback hosts. */
  allowHttpLoopback: boolean;
  /**
   * Told when an agent's ownership by a service account or a group changes: whether code may run as
   * an account depends on the agents it owns (core/identity/ownership.ts), so the definition index,
   * which judged it, must be rebuilt. Returns once runtimes were told.
   */
  ownershipChanged?: () => Promise<void>;
}

/** Owners whose agents change what code running as a service account may do. */
const accountOwned = (agent: Pick<AgentRecord, 'ownerType'>): boolean => agent.ownerType !== 'USER';

/** How many times an unversioned update re-reads after losing a race (each loss means another writer won). */
const UNVERSIONED_RETRIES = 100;

export class AgentService {
  constructor(private readonly deps: AgentServiceDeps) {}

  async create(principal: Principal, rawBody: unknown): Promise<AgentRecord> {
    const body = validBody(rawBody, agentCreateValidator, (b) => this.rules(b));
    const workspaceId = await creationWorkspace(this.deps.workspaces, principal, body.workspaceId);
    if (!isAdmin(principal) && !principal.roles.includes('AGENT_ADMIN')) {
      throw new ProblemError(403, 'FORBIDDEN', 'Creating agents needs AGENT_ADMIN or INSTANCE_ADMIN');
    }
    const clean = stripIgnoredFields(body) as AgentCreateBody;
    const ownerType: OwnerType = clean.ownerType ?? (clean.ownerId ? 'USER' : principal.kind === 'SERVICE_ACCOUNT' ? 'SERVICE_ACCOUNT' : 'USER');
    const ownerId = clean.ownerId ?? principal.id;
    await this.assertReferences({ workspaceId, ownerId, ownerType, serviceAccountUserId: clean.serviceAccountUserId ?? null }, {
      owner: clean.ownerId !== undefined || clean.ownerType !== undefined,
      serviceAccount: clean.serviceAccountUserId !== undefined,
    });
    if (clean.serviceAccountUserId !== undefined) await this.assertMayRunAs(principal, clean.serviceAccountUserId, workspaceId);
    const now = new Date();
    const record: AgentRecord = {
      id: crypto.randomUUID(),
      workspaceId,
      name: clean.name,
      desc: clean.desc ?? null,
      status: clean.status ?? 'ACTIVE',
      ownerId,
      ownerType,
      serviceAccountUserId: clean.serviceAccountUserId ?? null,
      metadata: clean.metadata ?? {},
      config: (clean.config ?? {}) as Record<string, unknown>,
      policy: (clean.policy ?? {}) as Record<string, unknown>,
      version: 0,
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.db.write(async (q) => {
      await this.deps.agents.insert(q, record);
      await this.audit(q, principal, 'agent.create', record, null, 0, {
        name: record.name, status: record.status, ownerId: record.ownerId, ownerType: record.ownerType, serviceAccountUserId: record.serviceAccountUserId,
      });
    });
    if (accountOwned(record)) await this.deps.ownershipChanged?.();
    return record;
  }

  /** A visible, readable agent (404 / 403 otherwise). */
  async get(principal: Principal, id: string): Promise<AgentRecord> {
    const agent = await this.deps.agents.get(id);
    assertVisible(principal, agent);
    assertCanRead(principal, agent);
    return agent;
  }

  /** DELETE; with If-Match, only the version it names is deleted (412 otherwise, nothing deleted). */
  async delete(principal: Principal, id: string, ifMatch: string | null = null): Promise<void> {
    const agent = await this.deps.agents.get(id);
    assertVisible(principal, agent);
    assertCanWrite(principal, agent);
    if (ifMatch !== null) assertIfMatch(ifMatch, agent.version);
    // With If-Match, deleted only while still at the version checked: an update in between makes it 412.
    const deleted = await this.deps.db.write(async (q) => {
      const version = await this.deps.agents.delete(q, agent.id, ifMatch === null ? undefined : agent.version);
      if (version !== null) await this.audit(q, principal, 'agent.delete', agent, version, null, { name: agent.name });
      return version !== null;
    });
    if (!deleted && ifMatch !== null) {
      const now = await this.deps.agents.get(id);
      if (now) throw preconditionFailed(now.version);
    }
    if (accountOwned(agent)) await this.deps.ownershipChanged?.();
  }

  /**
   * PATCH semantics (spec + DESIGN §4): replace config/policy/metadata when supplied, keep stored
   * `__` metadata keys, check `version` (409) and If-Match (412), enforce the DISABLED rule,
   * and commit with a compare-and-set so concurrent updates from one version yield one winner.
   */
  async update(principal: Principal, id: string, rawBody: unknown, ifMatch: string | null): Promise<AgentRecord> {
    for (let attempt = 0; ; attempt++) {
      const agent = await this.deps.agents.get(id);
      assertVisible(principal, agent);
      assertCanWrite(principal, agent);
      let body: AgentUpdateBody;
      try {
        body = stripIgnoredFields(validBody(rawBody, agentUpdateValidator, (b) => this.rules(b))) as AgentUpdateBody;
      } catch (error) {
        throw await this.withReferenceViolations(error, rawBody, agent);
      }

      assertIfMatch(ifMatch, agent.version);
      if (body.version !== undefined && body.version !== agent.version) throw versionConflict(agent.version);

      const { version: _version, ...fields } = body;
      if (agent.status === 'DISABLED' && fields.status !== 'ACTIVE' && fields.status !== 'PAUSED') {
        throw new ProblemError(409, 'AGENT_DISABLED', 'A DISABLED agent accepts only an update that moves it to ACTIVE or PAUSED');
      }
      if (Object.keys(fields).length === 0) return agent; // `{}`: nothing changes, version stays

      const changes = this.changesFrom(agent, fields);
      await this.assertReferences(
        { workspaceId: agent.workspaceId, ownerId: changes.ownerId ?? agent.ownerId, ownerType: changes.ownerType ?? agent.ownerType, serviceAccountUserId: changes.serviceAccountUserId ?? null },
        { owner: fields.ownerId !== undefined || fields.ownerType !== undefined, serviceAccount: fields.serviceAccountUserId !== undefined },
      );
      // Only a change of account: other edits keep an account an administrator chose.
      if (fields.serviceAccountUserId !== undefined && fields.serviceAccountUserId !== agent.serviceAccountUserId) {
        await this.assertMayRunAs(principal, fields.serviceAccountUserId, agent.workspaceId);
      }
      const updated = await this.deps.db.write(async (q) => {
        const stored = await this.deps.agents.compareAndSet(q, agent.id, agent.version, changes);
        if (stored) await this.audit(q, principal, 'agent.update', stored, agent.version, stored.version, changeDetails(agent, stored, changes));
        return stored;
      });
      if (updated) {
        if ((accountOwned(agent) || accountOwned(updated)) && (agent.ownerId !== updated.ownerId || agent.ownerType !== updated.ownerType)) await this.deps.ownershipChanged?.();
        return updated;
      }

      // Lost a race. A caller who named a version (or ETag) gets the conflict; otherwise re-read and re-apply.
      const current = await this.deps.agents.get(id);
      if (!current) throw notFound('Agent');
      if (body.version !== undefined) throw versionConflict(current.version);
      if (ifMatch !== null) {
        throw new ProblemError(412, 'PRECONDITION_FAILED', 'The agent changed concurrently', { extra: { currentVersion: current.version } });
      }
      if (attempt >= UNVERSIONED_RETRIES) throw versionConflict(current.version);
    }
  }

  private audit(q: Orm, principal: Principal, action: string, agent: AgentRecord, beforeVersion: number | null, afterVersion: number | null, details: Record<string, unknown>): Promise<void> {
    return recordChange(this.deps.db, q, principal, { action, resourceType: 'agent', resourceId: agent.id, workspaceId: agent.workspaceId, beforeVersion, afterVersion, details });
  }

  private rules(body: unknown): Violation[] {
    return agentRuleViolations(body, { enabledModels: this.deps.enabledModels, allowHttpLoopback: this.deps.allowHttpLoopback });
  }

  private changesFrom(agent: AgentRecord, fields: Omit<AgentUpdateBody, 'version'>): AgentChanges {
    const changes: AgentChanges = {};
    if (fields.name !== undefined) changes.name = fields.name;
    if (fields.desc !== undefined) changes.desc = fields.desc;
    if (fields.status !== undefined) changes.status = fields.status;
    if (fields.ownerId !== undefined) changes.ownerId = fields.ownerId;
    if (fields.ownerType !== undefined) changes.ownerType = fields.ownerType;
    if (fields.serviceAccountUserId !== undefined) changes.serviceAccountUserId = fields.serviceAccountUserId;
    if (fields.config !== undefined) changes.config = fields.config as Record<string, unknown>;
    if (fields.policy !== undefined) changes.policy = fields.policy as Record<string, unknown>;
    if (fields.metadata !== undefined) {
      // Backend-owned `__` keys survive a replace; clients cannot send them (rules reject).
      const reserved = Object.fromEntries(Object.entries(agent.metadata).filter(([k]) => k.startsWith('__')));
      changes.metadata = { ...fields.metadata, ...reserved };
    }
    return changes;
  }

  /**
   * ownerId must name a principal or group of ownerType; serviceAccountUserId an active service
   * account with platform access. A user or service account must belong to the agent's workspace
   * (or be INSTANCE_ADMIN): one that cannot see the agent is not a usable owner or account.
   */
  private async assertReferences(refs: References, changed: { owner: boolean; serviceAccount: boolean }): Promise<void> {
    const errors = await this.referenceViolations(refs, changed);
    if (errors.length > 0) throw new ProblemError(422, 'VALIDATION_FAILED', errors[0]!.message, { errors });
  }

  /**
   * A body the schema refused is checked for unusable references too, so that every violation is
   * reported at once (DESIGN §4): the owner and service account it names, where they are well formed.
   */
  private async withReferenceViolations(error: unknown, raw: unknown, agent: AgentRecord): Promise<unknown> {
    if (!(error instanceof ProblemError) || error.status !== 422 || !error.errors || raw === null || typeof raw !== 'object' || Array.isArray(raw)) return error;
    const refused = new Set(error.errors.map((v) => v.pointer));
    const body = raw as Record<string, unknown>;
    const id = (key: string) => (!refused.has(`/${key}`) && typeof body[key] === 'string' && isUuid(body[key]) ? body[key].toLowerCase() : undefined);
    const ownerId = id('ownerId');
    const ownerType = !refused.has('/ownerType') && OWNER_TYPES.includes(body.ownerType as OwnerType) ? (body.ownerType as OwnerType) : undefined;
    const serviceAccountUserId = id('serviceAccountUserId');
    const owner = ownerId !== undefined && (ownerType !== undefined || !('ownerType' in body));
    if (!owner && serviceAccountUserId === undefined) return error;
    const more = await this.referenceViolations(
      { workspaceId: agent.workspaceId, ownerId: ownerId ?? agent.ownerId, ownerType: ownerType ?? agent.ownerType, serviceAccountUserId: serviceAccountUserId ?? null },
      { owner, serviceAccount: serviceAccountUserId !== undefined },
    );
    return more.length === 0 ? error : new ProblemError(422, 'VALIDATION_FAILED', error.message, { errors: [...error.errors, ...more] });
  }

  private async referenceViolations(refs: References, changed: { owner: boolean; serviceAccount: boolean }): Promise<Violation[]> {
    const errors: Violation[] = [];
    if (changed.owner) {
      const owner = await this.owner(refs.ownerId, refs.ownerType, refs.workspaceId);
      if (owner === 'missing') errors.push({ pointer: '/ownerId', message: `No ${refs.ownerType} with id ${refs.ownerId}` });
      else if (owner === 'inactive') errors.push({ pointer: '/ownerId', message: `The ${refs.ownerType} ${refs.ownerId} is disabled or inactive` });
      else if (owner === 'elsewhere') errors.push({ pointer: '/ownerId', message: `The ${refs.ownerType} ${refs.ownerId} is not a member of the agent's workspace` });
    }
    if (changed.serviceAccount && refs.serviceAccountUserId !== null) {
      const account = await this.deps.principals.get(refs.serviceAccountUserId);
      if (!account || account.kind !== 'SERVICE_ACCOUNT') {
        errors.push({ pointer: '/serviceAccountUserId', message: 'No service account with this id' });
      } else if (!account.active || !account.platformAccess) {
        errors.push({ pointer: '/serviceAccountUserId', message: 'The service account must be active and have platform access' });
      } else if (!inWorkspace(account, refs.workspaceId)) {
        errors.push({ pointer: '/serviceAccountUserId', message: 'The service account is not a member of the agent\'s workspace' });
      }
    }
    return errors;
  }

  /** Runs of the agent act as its service account: choosing one is acting as it (actAsRefusal). */
  private async assertMayRunAs(principal: Principal, accountId: string, workspaceId: string): Promise<void> {
    const account = await this.deps.principals.get(accountId);
    // Unknown or unusable accounts were refused already (422, assertReferences).
    const message = account && actAsRefusal(principal, { ...account, agentWorkspaceIds: await this.deps.principals.agentWorkspaces(account.id) }, { kind: 'agent', workspaceId });
    if (message) throw new ProblemError(403, 'FORBIDDEN', message, { errors: [{ pointer: '/serviceAccountUserId', message }] });
  }

  /**
   * An owner must exist with that type and, for a user or service account, be active and see the
   * agent's workspace (DESIGN §4: "usable").
   */
  private async owner(id: string, type: OwnerType, workspaceId: string): Promise<'usable' | 'missing' | 'inactive' | 'elsewhere'> {
    if (type === 'GROUP') return (await this.deps.groups.get(id)) !== null ? 'usable' : 'missing';
    const principal = await this.deps.principals.get(id);
    if (principal === null || principal.kind !== type) return 'missing';
    if (!principal.active) return 'inactive';
    return inWorkspace(principal, workspaceId) ? 'usable' : 'elsewhere';
  }
}

interface References {
  workspaceId: string;
  ownerId: string;
  ownerType: OwnerType;
  serviceAccountUserId: string | null;
}

const OWNER_TYPES: readonly OwnerType[] = ['USER', 'GROUP', 'SERVICE_ACCOUNT'];

/** Fields an update's audit row shows before and after; config, policy and metadata are only named. */
const SHOWN_FIELDS = ['name', 'desc', 'status', 'ownerId', 'ownerType', 'serviceAccountUserId'] as const;

/** Which fields an update set, and the scalar ones' values before and after (a status move among them). */
function changeDetails(before: AgentRecord, after: AgentRecord, changes: AgentChanges): Record<string, unknown> {
  const shown = SHOWN_FIELDS.filter((field) => field in changes && before[field] !== after[field]);
  return {
    changed: Object.keys(changes),
    before: Object.fromEntries(shown.map((field) => [field, before[field]])),
    after: Object.fromEntries(shown.map((field) => [field, after[field]])),
  };
}

const versionConflict = (currentVersion: number) =>
  new ProblemError(409, 'VERSION_CONFLICT', `The agent is at version ${currentVersion}`, { extra: { currentVersion } });

