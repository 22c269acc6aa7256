// Endpoint definitions: create (disabled), PATCH with optimistic locking, activate / disable with
// route-conflict detection, contract validation, delete; each runtime-affecting change bumps the
// index version in its transaction and is published after the commit.
import { eq } from 'drizzle-orm';
import { isUuid } from '../core/lib/index.ts';
import { type Database, type Orm, isUniqueViolation } from '../core/db/index.ts';
import { assertIfMatch, validBody, ProblemError, notFound, type Violation } from '../core/http/index.ts';
import {
  inWorkspace,
  isAdmin,
  type Principal,
  creationWorkspace,
  WorkspaceStore,
  actAsRefusal,
  ownedAgentWorkspaces,
} from '../core/identity/index.ts';
import { recordChange } from '../audit/index.ts';
import {
  bumpIndexVersion,
  endpointShape,
  pathViolations,
  staticHeaderViolations,
  validators,
  type ContractStatus,
  type EndpointRecord,
  type EndpointUpdateBody,
  type EndpointStore,
} from '../core/definitions/index.ts';
import type { IndexPublisher } from '../core/index-channels/index.ts';
import { validateContract, type ContractDeps } from './contract.ts';

export interface EndpointServiceDeps {
  db: Database;
  store: EndpointStore;
  contract: ContractDeps;
  publisher: IndexPublisher;
}

const OPTIONAL_FIELDS = ['description', 'guard', 'validationFailure', 'componentId', 'componentDigest', 'popResult', 'staticResponse', 'executionPolicy', 'inputs'] as const;

export class EndpointService {
  constructor(private readonly deps: EndpointServiceDeps) {}

  async get(principal: Principal, id: string): Promise<EndpointRecord> {
    const endpoint = await this.deps.store.get(id);
    if (!endpoint || !inWorkspace(principal, endpoint.workspaceId)) throw notFound('Endpoint');
    return endpoint;
  }

  async create(principal: Principal, rawBody: unknown): Promise<EndpointRecord> {
    const body = await this.withDigestViolations(() => validBody(rawBody, validators.create, definitionRules), rawBody, principal.workspaceIds[0]);
    const workspaceId = await creationWorkspace(new WorkspaceStore(this.deps.db), principal, body.workspaceId);
    const now = new Date();
    const { workspaceId: _w, ...fields } = body;
    const record: EndpointRecord = {
      ...fields,
      id: crypto.randomUUID(),
      workspaceId,
      description: body.description ?? null,
      status: 'disabled',
      componentId: body.componentId ?? null,
      successStatus: body.successStatus ?? 200,
      timeoutMs: body.timeoutMs ?? 10_000,
      contractStatus: null,
      version: 0,
      createdAt: now,
      updatedAt: now,
    };
    const { db } = this.deps;
    return db.write(async (q) => {
      await this.checkBindings(q, record);
      await this.assertMayRunAs(q, principal, record, null);
      record.contractStatus = await validateContract(q, record, this.deps.contract);
      await this.deps.store.insert(q, record, principal.id);
      await recordChange(db, q, principal, { action: 'endpoint.create', resourceType: 'endpoint', resourceId: record.id, workspaceId, beforeVersion: null, afterVersion: 0 });
      return record;
    });
  }

  async update(principal: Principal, id: string, rawBody: unknown, ifMatch: string | null): Promise<EndpointRecord> {
    const current = await this.get(principal, id);
    const body = await this.withDigestViolations(() => validBody(rawBody, validators.update, definitionRules), rawBody, current.workspaceId, current.componentId);
    assertIfMatch(ifMatch, current.version);
    if (body.version !== undefined && body.version !== current.version) throw versionConflict(current.version);
    const { version: _v, ...fields } = body;
    if (Object.keys(fields).length === 0) return current;

    const next = applyPatch(current, fields);
    const { version, published } = await this.commit(current, next, principal, 'endpoint.update', async (q) => {
      await this.checkBindings(q, next);
      await this.assertMayRunAs(q, principal, next, current);
      next.contractStatus = await validateContract(q, next, this.deps.contract);
      if (next.status === 'active') {
        assertValid(next.contractStatus, 'The change would leave this active Endpoint invalid');
        await this.assertNoRouteConflict(q, next);
      }
    });
    if (published) await this.deps.publisher.published(published);
    return version;
  }

  /** DELETE (a disabled one only); with If-Match, only at the version it names (412 otherwise). */
  async delete(principal: Principal, id: string, ifMatch: string | null = null): Promise<void> {
    const current = await this.get(principal, id);
    if (current.status === 'active') throw new ProblemError(409, 'ENDPOINT_ACTIVE', 'Disable the Endpoint before deleting it');
    const { db } = this.deps;
    await db.write(async (q) => {
      const fresh = await this.deps.store.get(id, q);
      if (fresh) assertIfMatch(ifMatch, fresh.version);
      if (fresh?.status === 'active') throw new ProblemError(409, 'ENDPOINT_ACTIVE', 'Disable the Endpoint before deleting it');
      await this.deps.store.delete(q, id);
      await recordChange(db, q, principal, { action: 'endpoint.delete', resourceType: 'endpoint', resourceId: id, workspaceId: current.workspaceId, beforeVersion: current.version, afterVersion: null });
    });
  }

  /** Contract validation on demand. */
  async validate(principal: Principal, id: string): Promise<ContractStatus> {
    const endpoint = await this.get(principal, id);
    return this.deps.db.read((q) => validateContract(q, endpoint, this.deps.contract));
  }

  /** Activate; with If-Match, only from the version it names (412 otherwise). */
  async activate(principal: Principal, id: string, ifMatch: string | null = null): Promise<EndpointRecord> {
    const current = await this.get(principal, id);
    assertIfMatch(ifMatch, current.version);
    const next: EndpointRecord = { ...current, status: 'active' };
    const { version, published } = await this.commit(current, next, principal, 'endpoint.activate', async (q) => {
      next.contractStatus = await validateContract(q, next, this.deps.contract);
      assertValid(next.contractStatus, 'The Endpoint definition is not valid');
      await this.assertNoRouteConflict(q, next);
    }, current.status === 'active');
    if (published) await this.deps.publisher.published(published);
    return version;
  }

  /** Disable; with If-Match, only from the version it names (412 otherwise). */
  async disable(principal: Principal, id: string, ifMatch: string | null = null): Promise<EndpointRecord> {
    const current = await this.get(principal, id);
    assertIfMatch(ifMatch, current.version);
    const next: EndpointRecord = { ...current, status: 'disabled' };
    const { version, published } = await this.commit(current, next, principal, 'endpoint.disable', async () => {}, current.status === 'disabled');
    if (published) await this.deps.publisher.published(published);
    return version;
  }

  /**
   * Re-validates the Endpoints that follow the latest revision of a component, inside the
   * transaction that changed its active revision (pinned Endpoints are untouched).
   */
  async revalidateFollowers(q: Orm, componentId: string): Promise<void> {
    for (const endpoint of await this.deps.store.boundTo(q, componentId)) {
      const follows = (endpoint.componentId === componentId && !endpoint.componentDigest) ||
        (endpoint.guard?.type === 'component' && endpoint.guard.componentId === componentId && !endpoint.guard.componentDigest);
      if (!follows) continue;
      const contractStatus = await validateContract(q, endpoint, this.deps.contract);
      await q.update(this.deps.db.t.endpoints).set({ contractStatus: contractStatus as unknown as Record<string, unknown> }).where(eqId(this.deps.db, endpoint.id));
    }
  }

  /**
   * Writes `next` over `current` with compare-and-set, a version bump, an audit row and (when the
   * runtime is affected) an index version bump, all in one transaction. `unchanged` short-circuits.
   */
  private async commit(
    current: EndpointRecord,
    next: EndpointRecord,
    principal: Principal,
    action: string,
    check: (q: Orm) => Promise<void>,
    unchanged = false,
  ): Promise<{ version: EndpointRecord; published: number | null }> {
    if (unchanged) return { version: current, published: null };
    const { db, store } = this.deps;
    try {
      return await db.write(async (q) => {
        await check(q);
        const stored = await store.compareAndSet(q, current.version, { ...next, version: current.version + 1, updatedAt: new Date() });
        if (!stored) throw versionConflict((await store.get(current.id, q))?.version ?? current.version);
        const affectsRuntime = current.status === 'active' || next.status === 'active';
        const published = affectsRuntime ? await bumpIndexVersion(db, q) : null;
        await recordChange(db, q, principal, { action, resourceType: 'endpoint', resourceId: current.id, workspaceId: current.workspaceId, beforeVersion: current.version, afterVersion: stored.version });
        return { version: stored, published };
      });
    } catch (error) {
      // The partial unique index on active shapes settles races the pre-check cannot see.
      if (isUniqueViolation(error)) {
        const other = await db.read((q) => store.activeWithShape(q, endpointShape(next.method, next.path)));
        throw routeConflict(other?.id ?? null);
      }
      throw error;
    }
  }

  private async assertNoRouteConflict(q: Orm, next: EndpointRecord): Promise<void> {
    const other = await this.deps.store.activeWithShape(q, endpointShape(next.method, next.path));
    if (other && other.id !== next.id) throw routeConflict(other.id);
  }

  /**
   * Choosing a service account as the execution account is acting as it (actAsRefusal), and it
   * must belong to the Endpoint's workspace. Checked only when the choice changes: other edits
   * keep an account an administrator chose.
   */
  private async assertMayRunAs(q: Orm, principal: Principal, next: EndpointRecord, current: EndpointRecord | null): Promise<void> {
    const chosen = next.executionPolicy?.mode === 'SERVICE_ACCOUNT' ? next.executionPolicy.serviceAccountId : undefined;
    if (!chosen || isAdmin(principal)) return;
    const before = current?.executionPolicy?.mode === 'SERVICE_ACCOUNT' ? current.executionPolicy.serviceAccountId : undefined;
    if (before === chosen && current?.workspaceId === next.workspaceId) return;
    const account = await this.deps.contract.principal(q, chosen);
    // An unknown or unusable account is the contract's finding (EXECUTION_ACCOUNT_UNUSABLE).
    if (!account || account.kind !== 'SERVICE_ACCOUNT') return;
    const owned = (await ownedAgentWorkspaces(this.deps.db, q, [account.id])).get(account.id);
    const message = actAsRefusal(principal, { ...account, agentWorkspaceIds: owned }, { kind: 'Endpoint', workspaceId: next.workspaceId });
    if (message) throw new ProblemError(403, 'FORBIDDEN', message, { errors: [{ pointer: '/executionPolicy/serviceAccountId', message }] });
  }

  /**
   * A body the schema refused may also pin an unknown digest: checked too where the ids are well
   * formed, so that one 422 lists every violation (DESIGN §3).
   */
  private async withDigestViolations<T>(validate: () => T, raw: unknown, workspaceId: string | undefined, currentComponentId: string | null = null): Promise<T> {
    try {
      return lowerCaseDigests(validate());
    } catch (error) {
      if (!(error instanceof ProblemError) || error.status !== 422 || !error.errors || raw === null || typeof raw !== 'object') throw error;
      const body = raw as { componentId?: unknown; componentDigest?: unknown; workspaceId?: unknown };
      const componentId = typeof body.componentId === 'string' ? body.componentId.toLowerCase() : currentComponentId;
      const where = typeof body.workspaceId === 'string' && isUuid(body.workspaceId) ? body.workspaceId.toLowerCase() : workspaceId;
      if (typeof body.componentDigest !== 'string' || error.errors.some((v) => v.pointer === '/componentDigest' || v.pointer === '/componentId')) throw error;
      const digest = body.componentDigest;
      const known = componentId !== null && isUuid(componentId) && where !== undefined
        && (await this.deps.db.read((q) => this.deps.contract.components.hasDigest(q, componentId, digest, where)));
      if (known) throw error;
      const message = componentId === null ? 'A componentDigest names a revision of the componentId, and there is none' : 'No revision of the component has this digest';
      throw new ProblemError(422, 'VALIDATION_FAILED', error.message, { errors: [...error.errors, { pointer: '/componentDigest', message }] });
    }
  }

  /** Holds the bound components against a concurrent delete; a pinned digest must exist. */
  private async checkBindings(q: Orm, e: EndpointRecord): Promise<void> {
    const errors: Violation[] = [];
    const { components } = this.deps.contract;
    if (e.componentId) await components.hold(q, e.componentId);
    if (e.guard?.type === 'component') await components.hold(q, e.guard.componentId);
    if (!e.componentId && e.componentDigest) errors.push({ pointer: '/componentDigest', message: 'A componentDigest names a revision of the componentId, and there is none' });
    if (e.componentId && e.componentDigest && !(await components.hasDigest(q, e.componentId, e.componentDigest, e.workspaceId))) {
      errors.push({ pointer: '/componentDigest', message: 'No revision of the component has this digest' });
    }
    if (e.guard?.type === 'component' && e.guard.componentDigest && !(await components.hasDigest(q, e.guard.componentId, e.guard.componentDigest, e.workspaceId))) {
      errors.push({ pointer: '/guard/componentDigest', message: 'No revision of the guard component has this digest' });
    }
    if (errors.length > 0) throw new ProblemError(422, 'UNKNOWN_DIGEST', errors[0]!.message, { errors });
  }
}

const eqId = (db: Database, id: string) => eq(db.t.endpoints.id, id);

/** PATCH: supplied fields replace, `null` clears an optional one; a new componentId drops an old pin. */
function applyPatch(current: EndpointRecord, fields: Omit<EndpointUpdateBody, 'version'>): EndpointRecord {
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(fields)) {
    if (value === null) {
      if ((OPTIONAL_FIELDS as readonly string[]).includes(key)) next[key] = key === 'componentId' || key === 'description' ? null : undefined;
    } else if (value !== undefined) {
      next[key] = value;
    }
  }
  if (fields.componentId !== undefined && fields.componentId !== current.componentId && fields.componentDigest === undefined) {
    next.componentDigest = undefined;
  }
  for (const key of Object.keys(next)) if (next[key] === undefined) delete next[key];
  return next as unknown as EndpointRecord;
}

function pathRule(body: unknown): Violation[] {
  const path = (body as { path?: unknown } | null)?.path;
  return typeof path === 'string' ? pathViolations(path) : [];
}

/** The rules of a create or PATCH body beyond its schema. */
const HEX_DIGEST = /^sha256:[0-9a-f]{64}$/i;

/** Digests are stored in lower-case hex; one sent in capitals names the same revision. */
function lowerCaseDigests<T>(body: T): T {
  const b = body as { componentDigest?: unknown; guard?: { componentDigest?: unknown } | null };
  if (typeof b.componentDigest === 'string' && HEX_DIGEST.test(b.componentDigest)) b.componentDigest = b.componentDigest.toLowerCase();
  if (b.guard && typeof b.guard.componentDigest === 'string' && HEX_DIGEST.test(b.guard.componentDigest)) b.guard.componentDigest = b.guard.componentDigest.toLowerCase();
  return body;
}

/**
 * Configured documents the runtime holds and answers with (or hands every call) are bounded like a
 * component's result (DESIGN §8: 1 MiB). Beyond it a definition made every build of the index, and
 * its own activation, hold the serving thread for its size.
 */
const DEFINITION_DOCUMENT_LIMIT_BYTES = 1024 * 1024;

function sizeViolations(body: unknown): Violation[] {
  const b = body as { staticResponse?: { body?: unknown } | null; validationFailure?: { body?: unknown } | null; inputs?: unknown } | null;
  const documents: [string, unknown][] = [
    ['/staticResponse/body', b?.staticResponse?.body],
    ['/validationFailure/body', b?.validationFailure?.body],
    ['/inputs', b?.inputs],
  ];
  const out: Violation[] = [];
  for (const [pointer, value] of documents) {
    if (value === undefined || value === null) continue;
    const json = JSON.stringify(value);
    if (json.length > DEFINITION_DOCUMENT_LIMIT_BYTES / 3 && Buffer.byteLength(json, 'utf8') > DEFINITION_DOCUMENT_LIMIT_BYTES) {
      out.push({ pointer, message: `At most ${DEFINITION_DOCUMENT_LIMIT_BYTES} bytes as JSON (UTF-8)` });
    }
  }
  return out;
}

const definitionRules = (body: unknown): Violation[] => [...pathRule(body), ...staticHeaderViolations(body), ...sizeViolations(body)];

function assertValid(status: ContractStatus, detail: string): void {
  if (status.valid) return;
  throw new ProblemError(422, 'INVALID_DEFINITION', detail, {
    errors: status.errors.map((e) => ({ pointer: e.pointer ?? '', message: e.message, code: 'INVALID_DEFINITION' as const })),
    extra: { contractErrors: status.errors, warnings: status.warnings },
  });
}

const versionConflict = (currentVersion: number) =>
  new ProblemError(409, 'VERSION_CONFLICT', `The Endpoint is at version ${currentVersion}`, { extra: { currentVersion } });

const routeConflict = (conflictingEndpointId: string | null) =>
  new ProblemError(409, 'ROUTE_CONFLICT', 'An active Endpoint already serves this method and path shape', { extra: { conflictingEndpointId } });
