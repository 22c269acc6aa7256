// Run operations: start (refused on a DISABLED agent), read, cancel, and the events list, with
// access decided through the run's agent (404 for unknown or invisible runs).
import type { Principal } from '../core/identity/index.ts';
import { hasAnyRole, isAdmin } from '../core/identity/index.ts';
import { ProblemError, notFound, compile, validBody, NO_BODY } from '../core/http/index.ts';
import type { AgentService } from '../agents/index.ts';
import { recordChange } from '../audit/index.ts';
import { assertCanRead, assertCanWrite, isOwner } from '../agents/index.ts';
import { listMemory, listRuns } from './list.ts';
import { ApprovalStore, approvalJson, approvalResolve, resolveApproval } from './approvals.ts';
import type { RunEventStreams } from './stream.ts';
import { isUuid } from '../core/lib/index.ts';
import { and, eq } from 'drizzle-orm';
import type { AgentRecord } from '../agents/index.ts';
import type { Database } from '../core/db/index.ts';
import { runList, parseListQueryPartly, type ListResult, type FilterInput } from '../core/query/index.ts';
import { runEventsResource } from '../core/query/resources/index.ts';
import { FINAL_STATES, type RunRecord } from './record.ts';
import type { ParentCheck, RunStore } from './store.ts';
import { Type } from '@sinclair/typebox';
import { StringEnum } from '../core/http/index.ts';
import { AgentEnums } from '../agents/index.ts';
import { scriptViolations } from './models/index.ts';
import { runLimits } from './limits.ts';
import { canonicalJson } from '../core/lib/index.ts';

export const RunCreateBody = Type.Object(
  {
    input: Type.Optional(Type.Unknown({ description: 'Any JSON input for the run; for the `scripted` model, `input.script` is the script it plays' })),
    parentRunId: Type.Optional(Type.String({ format: 'uuid', description: 'Makes this a child run of a run of the same agent tree' })),
    mode: Type.Optional(StringEnum(AgentEnums.executionMode, { description: "Execution mode; default the agent's config.executionMode, else execute" })),
    approvalTimeoutMs: Type.Optional(Type.Integer({ minimum: 1000, maximum: 604_800_000, description: 'How long an approval of this run waits before it expires; default AGENT_APPROVAL_TIMEOUT_MS' })),
  },
  { additionalProperties: false, title: 'RunCreate' },
);

/** Runs started through the API wake the engine; cancellations abort the tick in flight. */
export interface EngineHooks {
  wake(): void;
  cancelled(runId: string): void;
  /** An approval of the run was resolved: the run waiting for it goes on at once. */
  resolved(runId: string): void;
}

const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;
const runCreate = compile(RunCreateBody);

export class RunService {
  constructor(
    private readonly db: Database,
    private readonly runs: RunStore,
    private readonly agents: AgentService,
    private readonly options: { enabledModels: readonly string[]; approvalTimeoutMs: number; engine?: EngineHooks; streams?: RunEventStreams },
  ) {
    this.approvalStore = new ApprovalStore(db);
  }

  private readonly approvalStore: ApprovalStore;

  /**
   * POST …/runs: a queued run (`created`), or with an `Idempotency-Key` the run the same principal
   * started for this agent with it within 24 h (`created: false`, nothing created).
   */
  async start(principal: Principal, agentId: string, rawBody: unknown, idempotencyKey: string | null = null): Promise<{ run: RunRecord; created: boolean; queuePosition: number | null }> {
    if (idempotencyKey !== null && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new ProblemError(400, 'BAD_REQUEST', 'Idempotency-Key must be 1 to 255 printable ASCII characters', { errors: [{ pointer: '/headers/idempotency-key', message: 'must be 1 to 255 printable ASCII characters' }] });
    }
    const agent = await this.agents.get(principal, agentId); // 404 invisible, 403 no agent role
    this.assertCanStart(principal, agent);
    const body = rawBody === undefined || rawBody === NO_BODY ? {} : validBody(rawBody, runCreate);
    if (this.modelOf(agent) === 'scripted') {
      const violations = scriptViolations(body.input);
      if (violations.length > 0) throw new ProblemError(422, 'VALIDATION_FAILED', `The script is malformed: ${violations[0]!.pointer} ${violations[0]!.message}`, { errors: violations });
    }
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
      const maxChildren = runLimits(spawner).maxChildRuns;
      check = {
        parentState(status) {
          if (status === null) throw noParent();
          if (FINAL_STATES.has(status) || status === 'cancelling') {
            throw new ProblemError(409, 'RUN_FINISHED', `The parent run is ${status}: it starts no more child runs`);
          }
        },
        maxChildren,
        childCount(existing, max) {
          if (existing >= max) throw new ProblemError(409, 'MAX_CHILD_RUNS', `The parent run already has ${existing} child runs, its agent's maxChildRuns`, { extra: { maxChildRuns: max } });
        },
      };
    }
    const id = crypto.randomUUID();
    const configured = agent.config.executionMode;
    // A PAUSED agent's run is created and stays queued until the agent is ACTIVE (DESIGN §4).
    const result = await this.runs.create(
      {
        id,
        agentId: agent.id,
        workspaceId: agent.workspaceId,
        rootRunId: rootRunId ?? id,
        parentRunId: body.parentRunId ?? null,
        mode: body.mode ?? (typeof configured === 'string' ? configured : 'execute'),
        approvalTimeoutMs: body.approvalTimeoutMs ?? this.options.approvalTimeoutMs,
        input: body.input ?? null,
        createdBy: principal.id,
        createdAt: new Date(),
      },
      check,
      idempotencyKey === null
        ? undefined
        : {
            key: idempotencyKey,
            body: canonicalJson(rawBody === undefined || rawBody === NO_BODY ? {} : rawBody),
            differs: () => {
              throw new ProblemError(409, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for a different request body within 24 hours');
            },
          },
    );
    if (result.created) this.options.engine?.wake();
    return { ...result, queuePosition: await this.queuePosition(result.run) };
  }

  /** The run's 1-based place among its agent's queued root runs; null when it is not one. */
  async queuePosition(run: RunRecord): Promise<number | null> {
    if (run.status !== 'queued' || run.parentRunId !== null) return null;
    return (await this.runs.queuePositions(run.agentId)).get(run.id) ?? null;
  }

  private modelOf(agent: AgentRecord): string {
    return typeof agent.config.model === 'string' ? agent.config.model : this.options.enabledModels[0]!;
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
      const moved = await this.runs.stop(current.id, 'cancelled', principal.id, { requestedBy: principal.id });
      if (moved) {
        this.options.engine?.cancelled(moved.id);
        await this.cancelDescendants(principal, moved);
        return moved;
      }
    }
    throw new ProblemError(409, 'CONFLICT', 'The run changed state concurrently; retry');
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
      if (!FINAL_STATES.has(r.status) && r.status !== 'cancelling' && (await this.runs.stop(r.id, 'parent_cancelled', principal.id))) this.options.engine?.cancelled(r.id);
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

  /** GET …/approvals: the run's approvals, oldest first. */
  async approvals(principal: Principal, runId: string): Promise<{ data: ReturnType<typeof approvalJson>[] }> {
    const { run } = await this.get(principal, runId);
    return { data: (await this.approvalStore.ofRun(run.id)).map(approvalJson) };
  }

  /** POST …/approvals/{approvalId} {approve, reason?}. */
  async resolve(principal: Principal, runId: string, approvalId: string, rawBody: unknown): Promise<ReturnType<typeof approvalJson>> {
    const { run, agent } = await this.get(principal, runId);
    const body = validBody(rawBody === NO_BODY ? undefined : rawBody, approvalResolve);
    const resolved = await resolveApproval(this.approvalStore, principal, agent, run, approvalId, body);
    this.options.engine?.resolved(run.id);
    return approvalJson(resolved);
  }

  /** GET /agents/{agentId}/runs: the list engine over the agent's runs. */
  async list(principal: Principal, agentId: string, search: string): Promise<ListResult> {
    const agent = await this.agents.get(principal, agentId);
    return listRuns(this.db, this.runs, agent.id, search, isAdmin(principal));
  }

  /** GET /agents/{agentId}/memory. */
  async memory(principal: Principal, agentId: string, search: string): Promise<ListResult> {
    const agent = await this.agents.get(principal, agentId);
    return listMemory(this.db, agent.id, search, isAdmin(principal));
  }

  /** DELETE /agents/{agentId}/memory/{memoryId}: the owner, AGENT_ADMIN and INSTANCE_ADMIN. */
  async forget(principal: Principal, agentId: string, memoryId: string): Promise<void> {
    const agent = await this.agents.get(principal, agentId);
    assertCanWrite(principal, agent);
    const { agentMemory } = this.db.t;
    if (!isUuid(memoryId)) throw notFound('Memory record');
    const deleted = await this.db.write(async (q) => {
      const rows = await q.delete(agentMemory).where(and(eq(agentMemory.id, memoryId), eq(agentMemory.agentId, agent.id))).returning({ id: agentMemory.id });
      // Forgetting is an administrator's change to the agent, not a step of a run: audited, not an event.
      if (rows[0]) {
        await recordChange(this.db, q, principal, {
          action: 'agent-memory.delete', resourceType: 'agent-memory', resourceId: rows[0].id, workspaceId: agent.workspaceId, beforeVersion: null, afterVersion: null, details: { agentId: agent.id },
        });
      }
      return rows;
    });
    if (deleted.length === 0) throw notFound('Memory record');
  }

  /**
   * GET …/events/stream: SSE after `Last-Event-ID` or `?after=` (a non-negative integer; the
   * header wins), else from the first event.
   */
  async stream(principal: Principal, runId: string, lastEventId: string | null, search: URLSearchParams): Promise<Response> {
    const { run } = await this.get(principal, runId);
    // One plain `after`: a bracket form (after[x]=…) or a repeat is malformed, not ignored.
    const given = [...search.keys()].filter((k) => k === 'after' || k.startsWith('after['));
    if (given.length > 1 || given.some((k) => k !== 'after')) {
      throw new ProblemError(400, 'BAD_REQUEST', 'after must be one non-negative integer (an event seq)', { errors: [{ pointer: '/query/after', message: 'must be one non-negative integer' }] });
    }
    const after = search.get('after') ?? undefined;
    const [raw, pointer] = lastEventId !== null ? [lastEventId, '/headers/last-event-id'] : after !== undefined ? [after, '/query/after'] : ['0', ''];
    if (!/^\d{1,15}$/.test(raw.trim())) throw new ProblemError(400, 'BAD_REQUEST', 'The event cursor must be a non-negative integer (an event seq)', { errors: [{ pointer, message: 'must be a non-negative integer' }] });
    if (!this.options.streams) throw new ProblemError(503, 'SERVICE_UNAVAILABLE', 'Live events are not served by this process');
    return this.options.streams.open(run.id, Number(raw.trim()));
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

const noParent = () => new ProblemError(422, 'VALIDATION_FAILED', 'No such parent run', { errors: [{ pointer: '/parentRunId', message: 'No visible run with this id' }] });
