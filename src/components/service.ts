// Component operations with their rules (DESIGN §7): create, read, PATCH with optimistic locking
// (changed content saves a new immutable revision, identical content none), delete unless
// something depends on it, and the revision history.
import { type Database, type Orm, isForeignKeyViolation, lockRow } from '../core/db/index.ts';
import { inWorkspace, type Principal, creationWorkspace, WorkspaceStore } from '../core/identity/index.ts';
import { ProblemError, notFound, validBody, preconditionFailed } from '../core/http/index.ts';
import { recordChange } from '../audit/index.ts';
import type { IndexPublisher } from '../core/index-channels/index.ts';
import { validators, type ComponentUpdateBody } from './schema.ts';
import { createRuleViolations, updateRuleViolations } from './rules.ts';
import { contentFromCreate, contentFromUpdate, touchesContent } from './content.ts';
import { contentDigest } from './digest.ts';
import type { SourceChecker } from './source-checker.ts';
import { assertCanRead, assertCanWrite, assertId, loadComponent } from './access.ts';
import { assertPreconditions, versionConflict } from './locking.ts';
import { findDependents } from './dependents.ts';
import { Activation, type ActiveRevisionHook } from './activation.ts';
import { approveIn } from './approval.ts';
import { approvalBy, ApprovalStore, bumpIndexVersion } from '../core/definitions/index.ts';
import { ComponentStore, type ComponentChanges } from './store.ts';
import { RevisionStore } from './revisions.ts';
import { listComponents, listOfComponent, revisionsResource } from './list.ts';
import { approvalJson, componentJson, revisionJson } from './json.ts';
import type { ComponentContent, ComponentRecord, ComponentView, RevisionRecord } from './record.ts';

export interface ComponentServiceDeps {
  db: Database;
  /** Told after the commit of every change that bumped the index version. */
  publisher: IndexPublisher;
  /** The Endpoint side's hook, run inside the transaction that makes a revision active. */
  onActiveRevisionChanged?: ActiveRevisionHook;
  /** Runs the save-time source checks off the event loop, within a time limit. */
  sources: SourceChecker;
}

/** How many times an unversioned update re-reads after losing a race (each loss means another writer won). */
const UNVERSIONED_RETRIES = 100;

export class ComponentService {
  private readonly db: Database;
  private readonly components: ComponentStore;
  private readonly revisions: RevisionStore;
  private readonly approvals: ApprovalStore;
  private readonly activation: Activation;

  constructor(private readonly deps: ComponentServiceDeps) {
    this.db = deps.db;
    this.components = new ComponentStore(deps.db);
    this.revisions = new RevisionStore(deps.db);
    this.approvals = new ApprovalStore(deps.db);
    this.activation = new Activation(deps.db, this.revisions, deps.onActiveRevisionChanged ?? (async () => {}));
  }

  async create(principal: Principal, rawBody: unknown): Promise<ComponentView> {
    assertCanWrite(principal);
    const body = await this.deps.sources.withSourceViolations(() => validBody(rawBody, validators.create, createRuleViolations), rawBody, (rawBody as { kind?: unknown } | null)?.kind);
    const workspaceId = await creationWorkspace(new WorkspaceStore(this.deps.db), principal, body.workspaceId);
    const content = contentFromCreate(body);
    await this.deps.sources.assertValid(content);

    const now = new Date();
    const activeOnSave = content.kind !== 'node';
    const revision: RevisionRecord = {
      id: crypto.randomUUID(),
      componentId: crypto.randomUUID(),
      number: 1,
      digest: contentDigest(content),
      status: activeOnSave ? 'active' : 'pending',
      content,
      createdBy: principal.id,
      createdAt: now,
    };
    const component: ComponentRecord = {
      id: revision.componentId,
      workspaceId,
      name: body.name,
      kind: body.kind,
      description: body.description ?? null,
      latestRevisionId: revision.id,
      activeRevisionId: activeOnSave ? revision.id : null,
      version: 0,
      createdBy: principal.id,
      createdAt: now,
      updatedAt: now,
    };
    let indexVersion: number | null = null;
    try {
      await this.db.write(async (q) => {
        await this.components.insert(q, component);
        await this.revisions.insert(q, revision);
        await this.approveOnSave(q, principal, revision);
        if (activeOnSave) indexVersion = (await this.activation.activated(q, component, revision)).indexVersion;
        await recordChange(this.db, q, principal, {
          action: 'component.create',
          resourceType: 'component',
          resourceId: component.id,
          workspaceId,
          beforeVersion: null,
          afterVersion: 0,
          details: { name: component.name, kind: component.kind, revisionId: revision.id, revisionNumber: 1, digest: revision.digest },
        });
      });
    } catch (error) {
      // An INSTANCE_ADMIN may name any workspace id; one that does not exist is unknown.
      if (isForeignKeyViolation(error)) throw notFound('Workspace');
      throw error;
    }
    await this.publish(indexVersion);
    return { component, latest: revision, active: activeOnSave ? revision : null };
  }

  async get(principal: Principal, id: string): Promise<ComponentView> {
    const component = await loadComponent(this.db, this.components, principal, id, 'read');
    return this.db.read((q) => this.viewOf(q, component));
  }

  /** GET /components: the caller's workspaces (every one for INSTANCE_ADMIN), newest first. */
  async list(principal: Principal, search: string) {
    assertCanRead(principal);
    return listComponents(this.db, principal, search, (ids) =>
      this.db.read(async (q) => {
        const rows = await this.components.byIds(q, ids);
        const kinds = new Map(rows.map((c) => [c.id, c.kind]));
        const revisionIds = rows.flatMap((c) => [c.latestRevisionId, c.activeRevisionId]).filter((x): x is string => x !== null);
        const revisions = await this.revisions.byIds(q, [...new Set(revisionIds)], (componentId) => kinds.get(componentId) ?? 'lowcode');
        return new Map(rows.map((component) => [component.id, componentJson({
          component,
          latest: component.latestRevisionId ? revisions.get(component.latestRevisionId) ?? null : null,
          active: component.activeRevisionId ? revisions.get(component.activeRevisionId) ?? null : null,
        })]));
      }),
    );
  }

  /**
   * PATCH: name, description and the kind's content fields; `version` (409) and If-Match (412)
   * are checked, and the change commits with a compare-and-set so one update wins per version.
   * Content whose digest equals the latest revision's saves no revision; a request that changes
   * nothing at all leaves the version where it is.
   */
  async update(principal: Principal, id: string, rawBody: unknown, ifMatch: string | null): Promise<ComponentView> {
    for (let attempt = 0; ; attempt++) {
      const current = await loadComponent(this.db, this.components, principal, id, 'write');
      const body = await this.deps.sources.withSourceViolations(() => validBody(rawBody, validators.update, (b) => updateRuleViolations(b, current.kind)), rawBody, current.kind);
      assertPreconditions(current.version, ifMatch, body.version);

      const latest = current.latestRevisionId ? await this.db.read((q) => this.revisions.get(q, current, current.latestRevisionId!)) : null;
      const content = touchesContent(body) ? contentFromUpdate(current.kind, latest?.content ?? null, body) : null;
      const revision = content && contentDigest(content) !== latest?.digest ? await this.draftRevision(principal, current, content) : null;
      const changes = this.fieldChanges(current, body);
      const changed = [...Object.keys(changes), ...(revision ? ['content'] : [])];
      if (changed.length === 0) return this.db.read((q) => this.viewOf(q, current));

      const committed = await this.db.write(async (q) => {
        if (revision) {
          changes.latestRevisionId = revision.id;
          if (revision.status === 'active') changes.activeRevisionId = revision.id;
        }
        const updated = await this.components.compareAndSet(q, id, current.version, changes);
        if (!updated) return null;
        let indexVersion: number | null = null;
        let saved: RevisionRecord | null = null;
        if (revision) {
          // Numbered under the component row's lock, which the compare-and-set holds until commit.
          saved = { ...revision, number: (await this.revisions.lastNumber(q, id)) + 1 };
          // A pending node revision runs nowhere, but its approval counts for an Endpoint pinned to
          // its digest, which only an earlier revision with that digest can have run so far.
          const digestRan = saved.status === 'pending' && (await this.revisions.byDigest(q, updated, saved.digest)) !== null;
          await this.revisions.insert(q, saved);
          const approved = await this.approveOnSave(q, principal, saved);
          if (saved.status === 'active') indexVersion = (await this.activation.activated(q, updated, saved)).indexVersion;
          else if (approved && digestRan) indexVersion = await bumpIndexVersion(this.db, q);
        }
        await recordChange(this.db, q, principal, {
          action: 'component.update',
          resourceType: 'component',
          resourceId: id,
          workspaceId: updated.workspaceId,
          beforeVersion: current.version,
          afterVersion: updated.version,
          details: {
            changed,
            ...(saved ? { revisionId: saved.id, revisionNumber: saved.number, digest: saved.digest } : {}),
          },
        });
        return { view: await this.viewOf(q, updated), indexVersion };
      });
      if (committed) {
        await this.publish(committed.indexVersion);
        return committed.view;
      }

      // Lost a race. A caller who named a version (or ETag) gets the conflict; otherwise re-read and re-apply.
      const now = await this.db.read((q) => this.components.get(q, id));
      if (!now) throw notFound('Component');
      if (body.version !== undefined) throw versionConflict(now.version);
      if (ifMatch !== null) throw preconditionFailed(now.version);
      if (attempt >= UNVERSIONED_RETRIES) throw versionConflict(now.version);
    }
  }

  /** DELETE: refused with 409 COMPONENT_IN_USE while an active Endpoint or an agent plugin uses it. */
  async delete(principal: Principal, id: string, ifMatch: string | null): Promise<void> {
    const current = await loadComponent(this.db, this.components, principal, id, 'write');
    assertPreconditions(current.version, ifMatch, undefined);
    await this.db.write(async (q) => {
      // Waits for writes binding this component to commit, so their Endpoints count as dependents.
      await lockRow(this.db, q, 'components', id, 'update');
      const dependents = await findDependents(this.db, q, id, current.workspaceId);
      if (dependents.length > 0) {
        const names = dependents.map((d) => `${d.type} "${d.name}" (${d.id})`);
        throw new ProblemError(409, 'COMPONENT_IN_USE', `The component is used by ${[...new Set(names)].join(', ')}`, { extra: { dependents } });
      }
      if (!(await this.components.delete(q, id))) throw notFound('Component');
      await recordChange(this.db, q, principal, {
        action: 'component.delete',
        resourceType: 'component',
        resourceId: id,
        workspaceId: current.workspaceId,
        beforeVersion: current.version,
        afterVersion: null,
        details: { name: current.name, kind: current.kind },
      });
    });
  }

  /** GET /components/{id}/revisions: newest first, with content. */
  async revisionList(principal: Principal, id: string, search: string) {
    const component = await loadComponent(this.db, this.components, principal, id, 'read');
    return listOfComponent(this.db, revisionsResource, principal, component.id, search, async (ids) => {
      const records = await this.db.read((q) => this.revisions.byIds(q, ids, () => component.kind));
      return new Map([...records].map(([rid, r]) => [rid, revisionJson(r)]));
    });
  }

  async revision(principal: Principal, id: string, revisionId: string): Promise<RevisionRecord> {
    const component = await loadComponent(this.db, this.components, principal, id, 'read');
    assertId(revisionId, 'Revision');
    const revision = await this.db.read((q) => this.revisions.get(q, component, revisionId));
    if (!revision) throw notFound('Revision');
    return revision;
  }

  /** GET …/revisions/{revisionId}/approval. */
  async approval(principal: Principal, id: string, revisionId: string) {
    const revision = await this.revision(principal, id, revisionId);
    return approvalJson(revision.id, await this.db.read((q) => this.approvals.of(q, revision.id)), principal);
  }

  /**
   * POST …/revisions/{revisionId}/approve: whoever may change the component approves a revision to
   * run as the service accounts its rights cover (./approval-rule.ts). Runtimes pick it up at once
   * (the index version moves); approving twice changes nothing.
   */
  async approve(principal: Principal, id: string, revisionId: string) {
    const approval = approvalBy(principal);
    if (!approval) throw new ProblemError(403, 'FORBIDDEN', 'Code is approved with the approver\'s own credential, never from inside an execution (api.platform)');
    const component = await loadComponent(this.db, this.components, principal, id, 'write');
    assertId(revisionId, 'Revision');
    const outcome = await this.db.write(async (q) => {
      // Concurrent approvals of one component take turns, so approving twice records one approval.
      await lockRow(this.db, q, 'components', component.id, 'update');
      const revision = await this.revisions.get(q, component, revisionId);
      if (!revision) throw notFound('Revision');
      const indexVersion = await approveIn(this.db, q, this.approvals, principal, approval, component, revision.id, { revisionNumber: revision.number });
      return { json: approvalJson(revision.id, await this.approvals.of(q, revision.id), principal), indexVersion };
    });
    await this.publish(outcome.indexVersion);
    return outcome.json;
  }

  /** Saving a revision is its author's approval (never from inside an execution); whether one was recorded. */
  private async approveOnSave(q: Orm, principal: Principal, revision: RevisionRecord): Promise<boolean> {
    const approval = approvalBy(principal, revision.createdAt);
    return approval !== null && (await this.approvals.record(q, revision.id, approval));
  }

  private async draftRevision(principal: Principal, component: ComponentRecord, content: ComponentContent): Promise<RevisionRecord> {
    await this.deps.sources.assertValid(content);
    return {
      id: crypto.randomUUID(),
      componentId: component.id,
      number: 0, // assigned in the transaction
      digest: contentDigest(content),
      // Newly saved node code never replaces the selected ready revision (spec, Versioning).
      status: content.kind === 'node' ? 'pending' : 'active',
      content,
      createdBy: principal.id,
      createdAt: new Date(),
    };
  }

  /** Name and description changes that actually change something. */
  private fieldChanges(current: ComponentRecord, body: ComponentUpdateBody): ComponentChanges {
    const changes: ComponentChanges = {};
    if (body.name !== undefined && body.name !== current.name) changes.name = body.name;
    if (body.description !== undefined && body.description !== current.description) changes.description = body.description;
    return changes;
  }

  private async viewOf(q: Orm, component: ComponentRecord): Promise<ComponentView> {
    const ids = [component.latestRevisionId, component.activeRevisionId].filter((x): x is string => x !== null);
    const revisions = await this.revisions.byIds(q, [...new Set(ids)], () => component.kind);
    return {
      component,
      latest: component.latestRevisionId ? revisions.get(component.latestRevisionId) ?? null : null,
      active: component.activeRevisionId ? revisions.get(component.activeRevisionId) ?? null : null,
    };
  }

  private async publish(indexVersion: number | null): Promise<void> {
    if (indexVersion !== null) await this.deps.publisher.published(indexVersion);
  }
}
