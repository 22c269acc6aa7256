// Run operations: start (refused on a DISABLED agent), read, cancel, and the events list, with
// access decided through the run's agent (404 for unknown or invisible runs).
import { type Principal, hasAnyRole, isAdmin } from '../core/identity/index.ts';
import { ProblemError, notFound, compile, validBody, NO_BODY } from '../core/http/index.ts';
import { type AgentService, assertCanRead, isOwner, type AgentRecord } from '../agents/index.ts';
import type { Database } from '../core/db/index.ts';
import { runList, parseListQueryPartly, type ListResult, type FilterInput } from '../core/query/index.ts';
import { runEventsResource } from '../core/query/resources/index.ts';
import { FINAL_STATES, type RunRecord } from './record.ts';
import type { ParentCheck, RunStore } from './store.ts';
import { Type } from '@sinclair/typebox';

export const RunCreateBody = Type.Object(
  {
    input: Type.Optional(Type.Unknown({ description: 'Any JSON input for the run' })),
    parentRunId: Type.Optional(Type.String({ format: 'uuid', description: 'Makes this a child run of a run of the same agent tree' })),
  },
  { additionalProperties: false, title: 'RunCreate' },
);
const runCreate = compile(RunCreateBody);

export class RunService {
  constructor(
    private readonly db: Database,
    private readonly runs: RunStore,
    private readonly agents: AgentService,
  ) {}

  async start(principal: Principal, agentId: string, rawBody: unknown): Promise<RunRecord> {
    const agent = await this.agents.get(principal, agentId); // 404 invisible, 403 no agent role
    this.assertCanStart(principal, agent);
    const body = rawBody === undefined || rawBody === NO_BODY ? {} : validBody(rawBody, runCreate);
    if (agent.status === 'DISABLED') throw new ProblemError(409, 'AGENT_DISABLED', 'Runs cannot be started on a DISABLED agent');
    let rootRunId: string | null = null;
    let check: ParentCheck | undefined;
    if (body.parentRunId) {
      // Only under a run the caller may read: a child joins its parent's tree, whose runs its
      // events list may join (an owner of another agent would otherwise read a stranger's run).
      const parent = await this.readable(principal, body.parentRunId);
      if (!parent || parent.workspaceId !== agent.workspaceId) throw noParent();
      rootRunId = parent.rootRunId;
      const spawner = await this.agents.get(principal, parent.agentId);
      const maxChildren = maxChildRuns(spawner);
      check = {
        parentState(status) {
          if (status === null) throw noParent();
          if (FINAL_STATES.has(status) || status === 'cancelling') {
            throw new ProblemError(409, 'RUN_FINISHED', `The parent run is ${status}: it starts no more child runs`);
          }
        },
        ...(maxChildren !== undefined ? { maxChildren } : {}),
        childCount(existing, max) {
          if (existing >= max) throw new ProblemError(409, 'MAX_CHILD_RUNS', `The parent run already has ${existing} child runs, its agent's maxChildRuns`, { extra: { maxChildRuns: max } });
        },
      };
    }
    const id = crypto.randomUUID();
    // A PAUSED agent's run is created and stays queued until the agent is ACTIVE (DESIGN §4).
    return this.runs.create({
      id,
      agentId: agent.id,
      workspaceId: agent.workspaceId,
      rootRunId: rootRunId ?? id,
      parentRunId: body.parentRunId ?? null,
      input: body.input ?? null,
      createdBy: principal.id,
      createdAt: new Date(),
    }, check);
  }

  /** A run the principal may read, with its agent. */
  async get(principal: Principal, runId: string): Promise<{ run: RunRecord; agent: AgentRecord }> {
    const run = await this.runs.get(runId);
    if (!run) throw notFound('Run');
    let agent: AgentRecord;
    try {
      agent = await this.agents.get(principal, run.agentId);
    } catch (error) {
      // An invisible agent makes its runs invisible too.
      if (error instanceof ProblemError && error.status === 404) throw notFound('Run');
      throw error;
    }
    assertCanRead(principal, agent);
    return { run, agent };
  }

  /** The run when the principal may read it, else null (unknown, invisible or forbidden alike). */
  private async readable(principal: Principal, runId: string): Promise<RunRecord | null> {
    try {
      return (await this.get(principal, runId)).run;
    } catch (error) {
      if (error instanceof ProblemError && (error.status === 404 || error.status === 403)) return null;
      throw error;
    }
  }

  /**
   * queued → cancelled at once; running/waiting → cancelling; finished → 409 RUN_FINISHED. The
   * run's descendants go with it (stop reason `parent_cancelled`): a child of a cancelled run has
   * nobody left to report to, and a cancelled parent starts no more children.
   */
  async cancel(principal: Principal, runId: string): Promise<RunRecord> {
    const { run, agent } = await this.get(principal, runId);
    this.assertCanCancel(principal, agent, run);
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = attempt === 0 ? run : (await this.runs.get(runId))!;
      if (FINAL_STATES.has(current.status)) throw new ProblemError(409, 'RUN_FINISHED', `The run is already ${current.status}`);
      if (current.status === 'cancelling') return current;
      const moved = await this.stop(principal, current, 'cancelled_by_user');
      if (moved) {
        await this.cancelDescendants(principal, moved);
        return moved;
      }
    }
    throw new ProblemError(409, 'CONFLICT', 'The run changed state concurrently; retry');
  }

  /** queued → cancelled, or running/waiting → cancelling, with its event; null when the run moved meanwhile. */
  private stop(principal: Principal, run: Pick<RunRecord, 'id' | 'status'>, stopReason: 'cancelled_by_user' | 'parent_cancelled'): Promise<RunRecord | null> {
    return run.status === 'queued'
      ? this.runs.transition(run.id, 'queued', 'cancelled', { type: 'run.cancelled', actor: principal.id, data: { stopReason } }, { stopReason, endedAt: new Date() })
      : this.runs.transition(run.id, run.status, 'cancelling', { type: 'run.cancelling', actor: principal.id, data: { requestedBy: principal.id, ...(stopReason === 'parent_cancelled' ? { reason: stopReason } : {}) } });
  }

  /** Stops every unfinished run below `run` in its tree (a run that moves meanwhile is left as it is). */
  private async cancelDescendants(principal: Principal, run: RunRecord): Promise<void> {
    const tree = await this.runs.tree(run.rootRunId);
    const children = new Map<string, typeof tree>();
    for (const r of tree) if (r.parentRunId) children.set(r.parentRunId, [...(children.get(r.parentRunId) ?? []), r]);
    const pending = [...(children.get(run.id) ?? [])];
    while (pending.length > 0) {
      const r = pending.shift()!;
      pending.push(...(children.get(r.id) ?? []));
      if (!FINAL_STATES.has(r.status) && r.status !== 'cancelling') await this.stop(principal, r, 'parent_cancelled');
    }
  }

  /** GET …/events: the list engine over this run's events (and its run tree, for joins and CTEs). */
  async events(principal: Principal, runId: string, search: string): Promise<ListResult> {
    const { run } = await this.get(principal, runId);
    const query = parseListQueryPartly(search);
    return runList(this.db.runner, runEventsResource, query, {
      scope: { field: 'runId', op: 'eq', value: run.id },
      tableScopes: {
        events: { field: 'runId', op: 'eq', value: run.id },
        runs: await this.treeScope(principal, run),
      },
      debugAllowed: isAdmin(principal),
    });
  }

  /**
   * The runs of a run's tree the principal may read. A run tree stays in one workspace, whose
   * agents an agent role (or INSTANCE_ADMIN) may all read; an owner without a role reads only the
   * runs of agents it owns.
   */
  private async treeScope(principal: Principal, run: RunRecord): Promise<FilterInput> {
    const tree: FilterInput = { field: 'rootRunId', op: 'eq', value: run.rootRunId };
    if (isAdmin(principal) || hasAnyRole(principal, ['AGENT_ADMIN', 'AGENT_USER'])) return tree;
    const readable: string[] = [];
    for (const agentId of await this.runs.agentsOfTree(run.rootRunId)) {
      try {
        assertCanRead(principal, await this.agents.get(principal, agentId));
        readable.push(agentId);
      } catch (error) {
        if (!(error instanceof ProblemError)) throw error;
      }
    }
    return { and: [tree, { field: 'agentId', op: 'in', value: readable }] };
  }

  /** Starting runs: AGENT_USER and AGENT_ADMIN of the workspace, the owner, INSTANCE_ADMIN. */
  private assertCanStart(principal: Principal, agent: AgentRecord): void {
    if (isAdmin(principal) || isOwner(principal, agent) || principal.roles.includes('AGENT_ADMIN') || principal.roles.includes('AGENT_USER')) return;
    throw new ProblemError(403, 'FORBIDDEN', 'Starting runs needs AGENT_USER, AGENT_ADMIN or ownership');
  }

  /**
   * Cancelling a run: AGENT_ADMIN of the workspace, the agent's owner, INSTANCE_ADMIN; an
   * AGENT_USER only the runs it started itself (it starts and reads runs, DESIGN §2: stopping
   * another user's work is an administrator's call).
   */
  private assertCanCancel(principal: Principal, agent: AgentRecord, run: RunRecord): void {
    if (isAdmin(principal) || isOwner(principal, agent) || principal.roles.includes('AGENT_ADMIN')) return;
    if (principal.roles.includes('AGENT_USER')) {
      if (run.createdBy === principal.id) return;
      throw new ProblemError(403, 'FORBIDDEN', 'An AGENT_USER may cancel only the runs it started');
    }
    throw new ProblemError(403, 'FORBIDDEN', 'Cancelling runs needs AGENT_ADMIN, ownership, or AGENT_USER for runs it started');
  }
}

/**
 * Child runs a run of this agent may spawn: the lower of its config's and its policy's
 * `maxChildRuns` (the policy limits what the config asks for); none when neither sets one.
 */
function maxChildRuns(agent: AgentRecord): number | undefined {
  const limits = [agent.config.maxChildRuns, agent.policy.maxChildRuns].filter((n): n is number => typeof n === 'number');
  return limits.length > 0 ? Math.min(...limits) : undefined;
}

const noParent = () => new ProblemError(422, 'VALIDATION_FAILED', 'No such parent run', { errors: [{ pointer: '/parentRunId', message: 'No visible run with this id' }] });
