// The engine's side of the runs table (DESIGN §5 Durability): claiming runs under a lease, and
// every write of an executing run fenced by that lease, so that no run executes twice at once on
// any number of processes. A process that lost a run's lease (it stalled past it and another
// took over) gets LeaseLost from its next write and stops executing that run.
import { and, asc, count, desc, eq, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Database, Orm } from '../../core/db/index.ts';
import { ACTIVE_STATES, type NewEvent, type RunRecord, type RunStatus } from '../index.ts';
import type { RunStore } from '../index.ts';
import type { ConversationEntry } from '../index.ts';
import type { AgentRecord } from '../../agents/index.ts';
import { runLimits } from '../index.ts';
import { ToolCallLedger } from './ledger.ts';

/** What the engine keeps between ticks. */
export interface RunState {
  conversation: ConversationEntry[];
  /** The run emitted run.paused and waits for its agent to be ACTIVE again. */
  paused?: boolean;
  /** The tick whose delegated children the run waits for before its next tick. */
  waitingChildren?: number;
  /** Children whose outcome the run has recorded (child_run.completed / failed). */
  reported?: string[];
  /** Plan review: the plan's approval, and whether it was approved. */
  planApprovalId?: string;
  planApproved?: boolean;
}

export interface EngineRun extends RunRecord {
  state: RunState | null;
  cancelReason: string | null;
  spawnTick: number | null;
  leaseOwner: string | null;
}

export class LeaseLost extends Error {
  override name = 'LeaseLost';
}

type RunRow = Database['t']['runs']['$inferSelect'];
type AgentRow = Database['t']['agents']['$inferSelect'];
const toRun = (row: RunRow): EngineRun => ({ ...row, status: row.status as RunStatus, state: (row.state as RunState | null) ?? null });

export interface ChildRow {
  id: string;
  status: RunStatus;
  output: unknown;
  error: string | null;
  stopReason: string | null;
  spawnIndex: number | null;
}

export class EngineStore {
  constructor(
    private readonly db: Database,
    private readonly runs: RunStore,
    /** This process's lease owner name. */
    readonly owner: string,
    private readonly leaseMs: number,
  ) {}

  private leaseUntil = () => new Date(Date.now() + this.leaseMs);

  /** Raw SQL inside a Postgres transaction (row locks); SQLite has one writer and needs none. */
  private pg<T = unknown>(q: Orm, query: SQL): Promise<T[]> {
    return (q as unknown as { execute(query: SQL): Promise<T[]> }).execute(query);
  }

  async load(id: string): Promise<EngineRun | null> {
    const { runs } = this.db.t;
    const rows = await this.db.read((q) => q.select().from(runs).where(eq(runs.id, id)));
    return rows[0] ? toRun(rows[0]) : null;
  }

  async agent(id: string): Promise<AgentRow | null> {
    const { agents } = this.db.t;
    const rows = await this.db.read((q) => q.select().from(agents).where(eq(agents.id, id)));
    return rows[0] ?? null;
  }

  // --- Claiming ----------------------------------------------------------------------------------

  /**
   * Candidates to start, oldest first: of each ACTIVE agent's queued root runs the oldest, and of
   * each parent's queued children the oldest (the others wait behind them in any case). So one
   * agent's long queue never hides another agent's runs from the scheduler.
   */
  async queued(limit: number): Promise<Pick<RunRecord, 'id' | 'agentId' | 'parentRunId'>[]> {
    const rows = await this.db.all(sql`
      SELECT r.id AS id, r.agent_id AS agent_id, r.parent_run_id AS parent_run_id
      FROM runs r JOIN agents a ON a.id = r.agent_id
      WHERE r.status = 'queued' AND a.status = 'ACTIVE'
        AND NOT EXISTS (
          SELECT 1 FROM runs o
          WHERE o.status = 'queued'
            AND ((r.parent_run_id IS NULL AND o.parent_run_id IS NULL AND o.agent_id = r.agent_id)
              OR (r.parent_run_id IS NOT NULL AND o.parent_run_id = r.parent_run_id))
            AND (o.created_at < r.created_at OR (o.created_at = r.created_at AND o.id < r.id)))
      ORDER BY r.created_at, r.id
      LIMIT ${limit}`);
    return rows.map((r) => ({ id: String(r.id), agentId: String(r.agent_id), parentRunId: r.parent_run_id == null ? null : String(r.parent_run_id) }));
  }

  /**
   * Starts a queued run when its agent is ACTIVE and has room: a root run when fewer than
   * maxActiveRootRuns of the agent's root runs are active and no older root run waits; a child
   * when fewer than its parent's maxConcurrentChildRuns siblings are active, its parent is not
   * ending and no older sibling waits. Serialised per agent by locking the agent's row (Postgres;
   * SQLite has one writer). Returns the started run, leased to this process.
   */
  async tryStart(candidate: Pick<RunRecord, 'id' | 'agentId' | 'parentRunId'>, startedData: (agent: AgentRow) => Record<string, unknown>): Promise<EngineRun | null> {
    const { runs, agents } = this.db.t;
    const startedRun = await this.db.write(async (q) => {
      let parent: RunRow | undefined;
      if (candidate.parentRunId) parent = (await q.select().from(runs).where(eq(runs.id, candidate.parentRunId)))[0];
      const agentIds = [...new Set([candidate.agentId, ...(parent ? [parent.agentId] : [])])].sort();
      if (this.db.dialect === 'postgres') for (const id of agentIds) await this.pg(q, sql`SELECT 1 FROM agents WHERE id = ${id} FOR UPDATE`);
      const [agent] = await q.select().from(agents).where(eq(agents.id, candidate.agentId));
      if (!agent || agent.status !== 'ACTIVE') return null;
      const [run] = this.db.dialect === 'postgres'
        ? await this.pg<{ id: string }>(q, sql`SELECT id FROM runs WHERE id = ${candidate.id} AND status = 'queued' FOR UPDATE SKIP LOCKED`)
        : await q.select({ id: runs.id }).from(runs).where(and(eq(runs.id, candidate.id), eq(runs.status, 'queued')));
      if (!run) return null;
      const [self] = await q.select().from(runs).where(eq(runs.id, candidate.id));
      if (!self) return null;
      const older = or(lt(runs.createdAt, self.createdAt), and(eq(runs.createdAt, self.createdAt), lt(runs.id, self.id)));
      if (!parent) {
        const limit = runLimits(agent as unknown as AgentRecord).maxActiveRootRuns;
        const [active] = await q.select({ n: count() }).from(runs).where(and(eq(runs.agentId, agent.id), isNull(runs.parentRunId), inArray(runs.status, [...ACTIVE_STATES])));
        if (Number(active?.n ?? 0) >= limit) return null;
        const waiting = await q.select({ id: runs.id }).from(runs).where(and(eq(runs.agentId, agent.id), isNull(runs.parentRunId), eq(runs.status, 'queued'), older)).limit(1);
        if (waiting.length > 0) return null;
      } else {
        // A child waits for its parent to start; one whose parent has ended still runs (it was
        // queued behind its siblings); a cancelling parent's children are being cancelled.
        if (parent.status === 'queued' || parent.status === 'cancelling') return null;
        const [parentAgent] = parent.agentId === agent.id ? [agent] : await q.select().from(agents).where(eq(agents.id, parent.agentId));
        if (!parentAgent) return null;
        const limit = runLimits(parentAgent as unknown as AgentRecord).maxConcurrentChildRuns;
        const [active] = await q.select({ n: count() }).from(runs).where(and(eq(runs.parentRunId, parent.id), inArray(runs.status, [...ACTIVE_STATES])));
        if (Number(active?.n ?? 0) >= limit) return null;
        const waiting = await q.select({ id: runs.id }).from(runs).where(and(eq(runs.parentRunId, parent.id), eq(runs.status, 'queued'), older)).limit(1);
        if (waiting.length > 0) return null;
      }
      const now = new Date();
      const [started] = await q
        .update(runs)
        .set({ status: 'running', startedAt: now, leaseOwner: this.owner, leaseExpiresAt: this.leaseUntil(), state: { conversation: [] } satisfies RunState })
        .where(and(eq(runs.id, self.id), eq(runs.status, 'queued')))
        .returning();
      if (!started) return null;
      await this.runs.append(q, self.id, { type: 'run.started', actor: 'system', data: startedData(agent) });
      return toRun(started);
    });
    if (startedRun) this.runs.announce(startedRun.id);
    return startedRun;
  }

  /**
   * Takes over unfinished runs whose lease lapsed (their process crashed or stopped), oldest
   * first; Postgres skips rows another process is taking at the same moment. `takenOver` is
   * true when another process (or this one before a restart) had been executing the run.
   */
  async takeOverLapsed(limit: number): Promise<{ run: EngineRun; takenOver: boolean }[]> {
    const { runs } = this.db.t;
    const now = new Date();
    const lapsed = and(inArray(runs.status, [...ACTIVE_STATES]), or(isNull(runs.leaseExpiresAt), lt(runs.leaseExpiresAt, now)));
    // Looked for with a read first: a scheduling pass runs every 250 ms, and on SQLite a write
    // transaction takes the database's one write lock even when it finds nothing.
    const any = await this.db.read((q) => q.select({ id: runs.id }).from(runs).where(lapsed).limit(1));
    if (any.length === 0) return [];
    return this.db.write(async (q) => {
      let ids: string[];
      if (this.db.dialect === 'postgres') {
        const rows = await this.pg<{ id: string }>(
          q,
          sql`SELECT id FROM runs WHERE status IN ('running', 'waiting_approval', 'cancelling') AND (lease_expires_at IS NULL OR lease_expires_at < ${now.toISOString()}::timestamptz) ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
        );
        ids = rows.map((r) => r.id);
      } else {
        ids = (await q.select({ id: runs.id }).from(runs).where(lapsed).orderBy(asc(runs.createdAt)).limit(limit)).map((r) => r.id);
      }
      const out: { run: EngineRun; takenOver: boolean }[] = [];
      for (const id of ids) {
        const [before] = await q.select({ leaseOwner: runs.leaseOwner }).from(runs).where(eq(runs.id, id));
        const [row] = await q.update(runs).set({ leaseOwner: this.owner, leaseExpiresAt: this.leaseUntil() }).where(and(eq(runs.id, id), lapsed)).returning();
        if (row) out.push({ run: toRun(row), takenOver: before?.leaseOwner != null });
      }
      return out;
    });
  }

  /** Renews this process's leases; returns the runs whose lease it no longer holds. */
  async renew(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const { runs } = this.db.t;
    const kept = await this.db.write((q) =>
      q.update(runs).set({ leaseExpiresAt: this.leaseUntil() }).where(and(inArray(runs.id, ids), eq(runs.leaseOwner, this.owner))).returning({ id: runs.id }),
    );
    const held = new Set(kept.map((r) => r.id));
    return ids.filter((id) => !held.has(id));
  }

  /**
   * Gives up the leases of unfinished runs at shutdown: they lapse at once, so that the next
   * process (or this one restarted) takes them over without waiting out RUN_LEASE_MS.
   */
  async lapse(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const { runs } = this.db.t;
    await this.db.write((q) => q.update(runs).set({ leaseExpiresAt: new Date(0) }).where(and(inArray(runs.id, ids), eq(runs.leaseOwner, this.owner))));
  }

  /** Statuses of runs (the ones this process executes), to notice cancellations made elsewhere. */
  async statuses(ids: string[]): Promise<Map<string, RunStatus>> {
    if (ids.length === 0) return new Map();
    const { runs } = this.db.t;
    const rows = await this.db.read((q) => q.select({ id: runs.id, status: runs.status }).from(runs).where(inArray(runs.id, ids)));
    return new Map(rows.map((r) => [r.id, r.status as RunStatus]));
  }

  // --- Fenced writes of an executing run ---------------------------------------------------------

  /** Checks inside a transaction that this process still holds the run's lease (and locks its row). */
  private async fence(q: Orm, runId: string): Promise<void> {
    const { runs } = this.db.t;
    const [held] = await q.update(runs).set({ leaseOwner: this.owner }).where(and(eq(runs.id, runId), eq(runs.leaseOwner, this.owner))).returning({ id: runs.id });
    if (!held) throw new LeaseLost(`lease of run ${runId} lost`);
  }

  /**
   * Appends events to an executing run (and updates its row) in one fenced transaction; `also`
   * writes more in the same transaction, before the events.
   */
  async write(runId: string, events: NewEvent[], fields: Partial<RunRow> = {}, also?: (q: Orm) => Promise<void>): Promise<void> {
    const { runs } = this.db.t;
    await this.db.write(async (q) => {
      // The events' seq numbers are taken with the lease checked: one statement for both.
      if (events.length === 0 || also) await this.fence(q, runId);
      if (Object.keys(fields).length > 0) await q.update(runs).set(fields).where(eq(runs.id, runId));
      if (also) await also(q);
      if (events.length > 0 && (await this.runs.appendAll(q, runId, events, this.owner)) === null) throw new LeaseLost(`lease of run ${runId} lost`);
    });
    this.runs.announce(runId);
  }

  /** The tool calls of the runs this process executes. */
  ledger(): ToolCallLedger {
    return new ToolCallLedger(this.db, this.runs, (runId, events, also) => this.write(runId, events, {}, also));
  }

  /**
   * Moves an executing run from one of `from` to `to` with its events, fenced; false when the run
   * was no longer in `from` (cancelled meanwhile). Optional `also` runs in the same transaction.
   */
  async move(runId: string, from: readonly RunStatus[], to: RunStatus, events: NewEvent[], fields: Partial<RunRow> = {}, also?: (q: Orm) => Promise<void>): Promise<boolean> {
    const { runs } = this.db.t;
    const moved = await this.db.write(async (q) => {
      await this.fence(q, runId);
      const final = to === 'completed' || to === 'failed' || to === 'cancelled' || to === 'timed_out';
      const [moved] = await q
        .update(runs)
        .set({ status: to, ...fields, ...(final ? { endedAt: new Date(), leaseOwner: null, leaseExpiresAt: null } : {}) })
        .where(and(eq(runs.id, runId), inArray(runs.status, [...from])))
        .returning({ id: runs.id });
      if (!moved) return false;
      if (also) await also(q);
      if (events.length > 0) await this.runs.appendAll(q, runId, events);
      return true;
    });
    if (moved) this.runs.announce(runId);
    return moved;
  }

  /** Releases the lease of a run this process stops executing without finishing it. */
  async release(runId: string): Promise<void> {
    const { runs } = this.db.t;
    await this.db.write((q) => q.update(runs).set({ leaseOwner: null, leaseExpiresAt: null }).where(and(eq(runs.id, runId), eq(runs.leaseOwner, this.owner))));
  }

  // --- Other runs ---------------------------------------------------------------------------------

  /** Stops a run this process does not execute (RunStore.stop); its new status, or null. */
  async stopOther(runId: string, reason: string, actor: string): Promise<RunStatus | null> {
    return (await this.runs.stop(runId, reason, actor))?.status ?? null;
  }

  /** Unfinished runs of DISABLED agents that are not yet being cancelled. */
  async ofDisabledAgents(limit: number): Promise<string[]> {
    const { runs, agents } = this.db.t;
    const rows = await this.db.read((q) =>
      q
        .select({ id: runs.id })
        .from(runs)
        .innerJoin(agents, eq(agents.id, runs.agentId))
        .where(and(eq(agents.status, 'DISABLED'), inArray(runs.status, ['queued', 'running', 'waiting_approval'])))
        .limit(limit),
    );
    return rows.map((r) => r.id);
  }

  /** Unfinished descendants of a run, parents before children. */
  async unfinishedDescendants(run: Pick<RunRecord, 'id' | 'rootRunId'>): Promise<string[]> {
    const tree = await this.runs.tree(run.rootRunId);
    const children = new Map<string, typeof tree>();
    for (const r of tree) if (r.parentRunId) children.set(r.parentRunId, [...(children.get(r.parentRunId) ?? []), r]);
    const out: string[] = [];
    const pending = [...(children.get(run.id) ?? [])];
    while (pending.length > 0) {
      const r = pending.shift()!;
      pending.push(...(children.get(r.id) ?? []));
      if (r.status === 'queued' || r.status === 'running' || r.status === 'waiting_approval') out.push(r.id);
    }
    return out;
  }

  // --- Children -----------------------------------------------------------------------------------

  /**
   * Spawns (or finds, when the tick runs again after a takeover) the child of tick `tick`'s
   * delegation entry `index`, with its child_run.spawned event on the parent, fenced.
   */
  async spawnChild(parent: EngineRun, tick: number, index: number, input: unknown, maxChildren: number): Promise<{ id: string } | 'limit'> {
    const { runs } = this.db.t;
    const spawned = await this.db.write(async (q) => {
      // The fence locks the parent's row: children started through the API count under the same lock.
      await this.fence(q, parent.id);
      const [existing] = await q.select({ id: runs.id }).from(runs).where(and(eq(runs.parentRunId, parent.id), eq(runs.spawnTick, tick), eq(runs.spawnIndex, index)));
      if (existing) return { id: existing.id };
      const [counted] = await q.select({ n: count() }).from(runs).where(eq(runs.parentRunId, parent.id));
      if (Number(counted?.n ?? 0) >= maxChildren) return 'limit';
      const id = crypto.randomUUID();
      await q.insert(runs).values({
        id,
        agentId: parent.agentId,
        workspaceId: parent.workspaceId,
        rootRunId: parent.rootRunId,
        parentRunId: parent.id,
        status: 'queued',
        stopReason: null,
        mode: parent.mode,
        input: input ?? null,
        createdBy: parent.createdBy,
        createdAt: new Date(),
        tickCount: 0,
        eventSeq: 0,
        approvalTimeoutMs: parent.approvalTimeoutMs,
        spawnTick: tick,
        spawnIndex: index,
      });
      await this.runs.append(q, id, { type: 'run.queued', actor: 'system', data: { createdBy: parent.createdBy, parentRunId: parent.id } });
      await this.runs.append(q, parent.id, { type: 'child_run.spawned', actor: 'agent', tickIndex: tick, data: { childRunId: id, status: 'queued' } });
      return { id };
    });
    if (spawned !== 'limit') this.runs.announce(parent.id, spawned.id);
    return spawned;
  }

  /** The children a tick delegated to, in delegation order. */
  async children(parentRunId: string, tick: number): Promise<ChildRow[]> {
    const { runs } = this.db.t;
    const rows = await this.db.read((q) =>
      q
        .select({ id: runs.id, status: runs.status, output: runs.output, error: runs.error, stopReason: runs.stopReason, spawnIndex: runs.spawnIndex })
        .from(runs)
        .where(and(eq(runs.parentRunId, parentRunId), eq(runs.spawnTick, tick)))
        .orderBy(asc(runs.spawnIndex)),
    );
    return rows.map((r) => ({ ...r, status: r.status as RunStatus }));
  }

  // --- Memory -------------------------------------------------------------------------------------

  /** The agent's newest memory summaries, newest first. */
  async recall(agentId: string, limit: number): Promise<string[]> {
    const { agentMemory } = this.db.t;
    const rows = await this.db.read((q) => q.select({ summary: agentMemory.summary }).from(agentMemory).where(eq(agentMemory.agentId, agentId)).orderBy(desc(agentMemory.createdAt), desc(agentMemory.id)).limit(limit));
    return rows.map((r) => r.summary);
  }

  /** Stores a memory record inside a finishing run's transaction (its memory.stored event is the caller's). */
  async remember(q: Orm, id: string, run: Pick<RunRecord, 'id' | 'agentId'>, summary: string): Promise<void> {
    await q.insert(this.db.t.agentMemory).values({ id, agentId: run.agentId, runId: run.id, summary, createdAt: new Date() });
  }
}
