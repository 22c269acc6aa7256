// Deployments of node components (DESIGN §7): an attempt is recorded `building`, built off the
// request (the transpiled module is loaded in the executor's sandbox, which checks the default
// export), and finishes `ready` or `failed` with its reason. Activating a ready attempt selects
// its revision; activating an earlier ready one is the rollback. Saving code never does either.
import { type Database, lockRow } from '../core/db/index.ts';
import type { Principal } from '../core/identity/index.ts';
import type { Logger } from '../core/index.ts';
import { ProblemError, notFound, validBody } from '../core/http/index.ts';
import { recordChange } from '../audit/index.ts';
import { bumpIndexVersion, approvalBy, ApprovalStore } from '../core/definitions/index.ts';
import type { IndexPublisher } from '../core/index-channels/index.ts';
import { validators } from './schema.ts';
import { assertId, loadComponent } from './access.ts';
import { Activation, type ActiveRevisionHook } from './activation.ts';
import { approveIn } from './approval.ts';
import { ComponentStore } from './store.ts';
import { RevisionStore } from './revisions.ts';
import { DeploymentStore } from './deployment-store.ts';
import { deploymentsResource, listOfComponent } from './list.ts';
import { deploymentJson } from './json.ts';
import type { ComponentVerifier, VerifyResult } from './verifier.ts';
import type { ComponentRecord, DeploymentRecord, RevisionRecord } from './record.ts';

export interface DeploymentServiceDeps {
  db: Database;
  publisher: IndexPublisher;
  /** The executor (or anything that loads a module in a sandbox the same way). */
  verifier: ComponentVerifier;
  onActiveRevisionChanged?: ActiveRevisionHook;
  log?: Pick<Logger, 'error'>;
  /** A build still unanswered after this fails; default 60 s (the executor's own limit is shorter). */
  buildTimeoutMs?: number;
}

const DEFAULT_BUILD_TIMEOUT_MS = 60_000;
const ERROR_MAX_CHARS = 2000;

export class DeploymentService {
  private readonly db: Database;
  private readonly components: ComponentStore;
  private readonly revisions: RevisionStore;
  private readonly approvals: ApprovalStore;
  private readonly deployments: DeploymentStore;
  private readonly activation: Activation;
  private readonly buildTimeoutMs: number;
  private readonly building = new Set<Promise<void>>();

  constructor(private readonly deps: DeploymentServiceDeps) {
    this.db = deps.db;
    this.components = new ComponentStore(deps.db);
    this.revisions = new RevisionStore(deps.db);
    this.approvals = new ApprovalStore(deps.db);
    this.deployments = new DeploymentStore(deps.db);
    this.activation = new Activation(deps.db, this.revisions, deps.onActiveRevisionChanged ?? (async () => {}));
    this.buildTimeoutMs = deps.buildTimeoutMs ?? DEFAULT_BUILD_TIMEOUT_MS;
  }

  /** POST …/deployments: records the attempt and answers at once; the build continues in the background. */
  async start(principal: Principal, componentId: string, rawBody: unknown): Promise<DeploymentRecord> {
    const component = await loadComponent(this.db, this.components, principal, componentId, 'write');
    const body = validBody(rawBody, validators.deploy);
    if (component.kind !== 'node') {
      throw new ProblemError(409, 'CONFLICT', `A ${component.kind} component is not deployed: its revisions are active when saved`);
    }
    const revision = await this.db.read((q) => this.revisions.get(q, component, body.revisionId));
    if (!revision) {
      throw new ProblemError(422, 'VALIDATION_FAILED', 'No revision with this id in the component', {
        errors: [{ pointer: '/revisionId', message: 'No revision with this id in the component' }],
      });
    }
    const deployment: DeploymentRecord = {
      id: crypto.randomUUID(),
      componentId,
      revisionId: revision.id,
      status: 'building',
      error: null,
      active: false,
      createdBy: principal.id,
      createdAt: new Date(),
      readyAt: null,
    };
    await this.db.write(async (q) => {
      await this.deployments.insert(q, deployment);
      await recordChange(this.db, q, principal, {
        action: 'deployment.create',
        resourceType: 'deployment',
        resourceId: deployment.id,
        workspaceId: component.workspaceId,
        beforeVersion: null,
        afterVersion: null,
        details: { componentId, revisionId: revision.id, revisionNumber: revision.number },
      });
    });
    const build = this.build(principal, component, deployment, revision);
    this.building.add(build);
    void build.finally(() => this.building.delete(build));
    return deployment;
  }

  async list(principal: Principal, componentId: string, search: string) {
    const component = await loadComponent(this.db, this.components, principal, componentId, 'read');
    return listOfComponent(this.db, deploymentsResource, principal, component.id, search, async (ids) => {
      const records = await this.db.read((q) => this.deployments.byIds(q, ids));
      return new Map(records.map((d) => [d.id, deploymentJson(d)]));
    });
  }

  async get(principal: Principal, componentId: string, deploymentId: string): Promise<DeploymentRecord> {
    const component = await loadComponent(this.db, this.components, principal, componentId, 'read');
    return this.find(component, deploymentId);
  }

  /**
   * Selects the attempt's revision (409 DEPLOYMENT_NOT_READY unless the attempt is ready). The
   * component row is updated first, so concurrent activations of one component take turns.
   */
  async activate(principal: Principal, componentId: string, deploymentId: string): Promise<DeploymentRecord> {
    const component = await loadComponent(this.db, this.components, principal, componentId, 'write');
    const deployment = await this.find(component, deploymentId);
    if (deployment.status !== 'ready') {
      throw new ProblemError(409, 'DEPLOYMENT_NOT_READY', `The deployment is ${deployment.status}; only a ready deployment can be activated`, {
        extra: { deploymentStatus: deployment.status },
      });
    }
    // Selecting a revision is the activator's approval of it to run as the service accounts its
    // rights cover (./approval-rule.ts); selecting it again approves one selected before.
    const approval = approvalBy(principal);
    if (deployment.active) {
      if (!approval) return deployment;
      const indexVersion = await this.db.write(async (q) => {
        await lockRow(this.db, q, 'components', component.id, 'update');
        return approveIn(this.db, q, this.approvals, principal, approval, component, deployment.revisionId, { deploymentId: deployment.id });
      });
      if (indexVersion !== null) await this.deps.publisher.published(indexVersion);
      return deployment;
    }
    const outcome = await this.db.write(async (q) => {
      const updated = await this.components.bump(q, componentId, { activeRevisionId: deployment.revisionId });
      if (!updated) throw notFound('Component');
      // Recorded under the component row's lock, which the bump holds until commit.
      const approved = approval !== null && (await this.approvals.record(q, deployment.revisionId, approval));
      const revision = await this.revisions.get(q, updated, deployment.revisionId);
      if (!revision) throw notFound('Revision');
      const activeDeployment = await this.deployments.setActive(q, componentId, deployment.id);
      if (!activeDeployment) throw notFound('Deployment');
      // Another ready attempt of the same revision may already be selected: then only the mark moves.
      const activated = revision.status === 'active' ? null : await this.activation.activated(q, updated, revision);
      await recordChange(this.db, q, principal, {
        action: 'deployment.activate',
        resourceType: 'deployment',
        resourceId: deployment.id,
        workspaceId: updated.workspaceId,
        beforeVersion: updated.version - 1,
        afterVersion: updated.version,
        details: { componentId, revisionId: revision.id, revisionNumber: revision.number, supersededRevisionIds: activated?.supersededIds ?? [] },
      });
      return { deployment: activeDeployment, indexVersion: activated?.indexVersion ?? (approved ? await bumpIndexVersion(this.db, q) : null) };
    });
    if (outcome.indexVersion !== null) await this.deps.publisher.published(outcome.indexVersion);
    return outcome.deployment;
  }

  /** Resolves once every build started so far has recorded its outcome (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.building.size > 0) await Promise.allSettled([...this.building]);
  }

  /**
   * Fails attempts left `building` by a control plane that stopped mid-build. Only those older
   * than twice the build timeout, so another instance's live builds are left alone. Call at start.
   */
  async failStaleBuilds(): Promise<number> {
    const before = new Date(Date.now() - 2 * this.buildTimeoutMs);
    return this.db.write((q) => this.deployments.failStale(q, before, 'The build was interrupted before it finished'));
  }

  /**
   * Keeps failing stale attempts while the control plane runs: an attempt interrupted shortly
   * before a restart is not yet stale at start. Returns the stop function.
   */
  sweepStaleBuilds(): () => void {
    const timer = setInterval(() => void this.failStaleBuilds().catch(() => undefined), this.buildTimeoutMs);
    timer.unref?.();
    return () => clearInterval(timer);
  }

  private async find(component: ComponentRecord, deploymentId: string): Promise<DeploymentRecord> {
    assertId(deploymentId, 'Deployment');
    const deployment = await this.db.read((q) => this.deployments.get(q, component.id, deploymentId));
    if (!deployment) throw notFound('Deployment');
    return deployment;
  }

  /** Never throws: every way a build can end is recorded on the attempt. */
  private async build(principal: Principal, component: ComponentRecord, deployment: DeploymentRecord, revision: RevisionRecord): Promise<void> {
    const result = await this.verify(component, revision);
    const outcome = result.ok
      ? { status: 'ready' as const, error: null, readyAt: new Date() }
      : { status: 'failed' as const, error: result.error.slice(0, ERROR_MAX_CHARS), readyAt: null };
    try {
      const indexVersion = await this.db.write(async (q) => {
        // Null when the component was deleted meanwhile: nothing left to record.
        const finished = await this.deployments.finish(q, deployment.id, outcome);
        if (!finished) return null;
        await recordChange(this.db, q, principal, {
          action: outcome.status === 'ready' ? 'deployment.ready' : 'deployment.failed',
          resourceType: 'deployment',
          resourceId: deployment.id,
          workspaceId: component.workspaceId,
          beforeVersion: null,
          afterVersion: null,
          details: { componentId: component.id, revisionId: revision.id, ...(outcome.error ? { error: outcome.error } : {}) },
        });
        // An Endpoint pinned to this revision can run it now: runtimes re-resolve their bindings.
        return outcome.status === 'ready' ? bumpIndexVersion(this.db, q) : null;
      });
      if (indexVersion !== null) await this.deps.publisher.published(indexVersion);
    } catch (error) {
      this.deps.log?.error(`recording the outcome of deployment ${deployment.id} failed`, error);
    }
  }

  private async verify(component: ComponentRecord, revision: RevisionRecord): Promise<VerifyResult> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<VerifyResult>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, error: `The build did not finish within ${this.buildTimeoutMs} ms` }), this.buildTimeoutMs);
    });
    try {
      return await Promise.race([this.deps.verifier.verify({ id: revision.id, tenant: component.workspaceId, kind: 'node', source: revision.content.kind === 'node' ? revision.content.source : '' }), deadline]);
    } catch (error) {
      return { ok: false, error: `The module could not be loaded: ${error instanceof Error ? error.message : String(error)}` };
    } finally {
      clearTimeout(timer);
    }
  }
}
