// Runs and their event log. Each event's `seq` comes from a per-run counter bumped in the same
// transaction, so concurrent appends to one run get distinct, increasing numbers on both databases.
import { and, asc, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import { isUniqueViolation } from '../core/db/index.ts';
import type { Database, Orm } from '../core/db/index.ts';
import type { NewEvent, RunRecord, RunStatus } from './record.ts';
import { isUuid } from '../core/lib/index.ts';

type RunRow = Database['t']['runs']['$inferSelect'];

/** What a new child run's parent must allow, checked with the parent locked; each throws to refuse. */
export interface ParentCheck {
  /** `null`: the parent is gone (deleted with its agent since it was read). */
  parentState(status: RunStatus | null): void;
  /** The parent's limit on child runs, if any. */
  maxChildren: number;
  childCount(existing: number, max: number): void;
}
const toRecord = (row: RunRow): RunRecord => ({ ...row, status: row.status as RunStatus });
const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

export class RunStore {
  /** Told after a commit that appended events to a run (the live event streams listen). */
  private readonly listeners = new Set<(runId: string) => void>();

  constructor(private readonly db: Database) {}

  onAppended(listener: (runId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Says that events of these runs were committed. */
  announce(...runIds: string[]): void {
    for (const listener of this.listeners) for (const id of runIds) listener(id);
  }

  async get(id: string): Promise<RunRecord | null> {
    if (!isUuid(id)) return null;
    const { runs } = this.db.t;
    const rows = await this.db.read((q) => q.select().from(runs).where(eq(runs.id, id)));
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** The agents whose runs make up the run tree under `rootRunId`. */
  async agentsOfTree(rootRunId: string): Promise<string[]> {
    const { runs } = this.db.t;
    const rows = await this.db.read((q) => q.selectDistinct({ agentId: runs.agentId }).from(runs).where(eq(runs.rootRunId, rootRunId)));
    return rows.map((r) => r.agentId);
  }

  /** Every run of the tree under `rootRunId`: id, parent and status. */
  async tree(rootRunId: string): Promise<Pick<RunRecord, 'id' | 'parentRunId' | 'status'>[]> {
    const { runs } = this.db.t;
    const rows = await this.db.read((q) => q.select({ id: runs.id, parentRunId: runs.parentRunId, status: runs.status }).from(runs).where(eq(runs.rootRunId, rootRunId)));
    return rows.map((r) => ({ ...r, status: r.status as RunStatus }));
  }

  /**
   * Creates a queued run and its first event, `run.queued`. A child run is checked against its
   * parent in the same transaction, with the parent's row locked (Postgres; SQLite serialises
   * writers), so concurrent children cannot pass the checks together. With an idempotency key, a
   * run the same principal started for the same agent with that key within 24 h is answered
   * instead (`created: false`), or the start refused when its body differs.
   */
  async create(
    run: Omit<RunRecord, 'status' | 'stopReason' | 'startedAt' | 'endedAt' | 'tickCount' | 'output' | 'error' | 'toolCalls' | 'promptTokens' | 'completionTokens'>,
    parent?: ParentCheck,
    idempotency?: { key: string; body: string; differs(): never },
  ): Promise<{ run: RunRecord; created: boolean }> {
    const record: RunRecord = { ...run, status: 'queued', stopReason: null, startedAt: null, endedAt: null, tickCount: 0, output: null, error: null, toolCalls: 0, promptTokens: 0, completionTokens: 0 };
    const { runs } = this.db.t;
    const attempt = () =>
      this.db.write(async (q) => {
        if (idempotency) {
          const [earlier] = await q.select().from(runs).where(and(eq(runs.agentId, run.agentId), eq(runs.createdBy, run.createdBy), eq(runs.idempotencyKey, idempotency.key)));
          if (earlier && earlier.createdAt.getTime() > Date.now() - IDEMPOTENCY_WINDOW_MS) {
            if (earlier.idempotencyBody !== idempotency.body) idempotency.differs();
            return { run: toRecord(earlier), created: false };
          }
          // Older than the window: the key is free again.
          if (earlier) await q.update(runs).set({ idempotencyKey: null }).where(eq(runs.id, earlier.id));
        }
        if (parent && run.parentRunId) await this.checkParent(q, run.parentRunId, run.rootRunId, parent);
        await q.insert(runs).values({ ...record, eventSeq: 0, idempotencyKey: idempotency?.key ?? null, idempotencyBody: idempotency?.body ?? null });
        await this.append(q, record.id, { type: 'run.queued', actor: 'system', data: { createdBy: run.createdBy } });
        return { run: record, created: true };
      });
    let result: { run: RunRecord; created: boolean };
    try {
      result = await attempt();
    } catch (error) {
      // Two starts with one key at once: the loser's insert breaks the unique index; it answers the winner.
      if (!(idempotency && isUniqueViolation(error))) throw error;
      result = await attempt();
    }
    if (result.created) this.announce(result.run.id);
    return result;
  }

  /**
   * Stops a run its caller does not execute: queued → cancelled at once, running or waiting →
   * cancelling (the process executing it finishes it, with `reason` as its stopReason). Null when
   * it had finished or was already cancelling.
   */
  async stop(runId: string, reason: string, actor: string, data: Record<string, unknown> = {}): Promise<RunRecord | null> {
    const { runs } = this.db.t;
    const stopped = await this.db.write(async (q) => {
      const [cancelled] = await q
        .update(runs)
        .set({ status: 'cancelled', stopReason: reason, endedAt: new Date() })
        .where(and(eq(runs.id, runId), eq(runs.status, 'queued')))
        .returning();
      if (cancelled) {
        await this.append(q, runId, { type: 'run.cancelled', actor, data: { stopReason: reason } });
        return toRecord(cancelled);
      }
      const [cancelling] = await q
        .update(runs)
        .set({ status: 'cancelling', cancelReason: reason })
        .where(and(eq(runs.id, runId), inArray(runs.status, ['running', 'waiting_approval'])))
        .returning();
      if (!cancelling) return null;
      await this.append(q, runId, { type: 'run.cancelling', actor, data: { reason, ...data } });
      return toRecord(cancelling);
    });
    if (stopped) this.announce(runId);
    return stopped;
  }

  /** 1-based places of the agent's queued root runs, in start order. */
  async queuePositions(agentId: string): Promise<Map<string, number>> {
    const { runs } = this.db.t;
    const rows = await this.db.read((q) =>
      q.select({ id: runs.id }).from(runs).where(and(eq(runs.agentId, agentId), isNull(runs.parentRunId), eq(runs.status, 'queued'))).orderBy(asc(runs.createdAt), asc(runs.id)),
    );
    return new Map(rows.map((r, i) => [r.id, i + 1]));
  }

  /** Whole records of these runs. */
  async many(ids: string[]): Promise<RunRecord[]> {
    if (ids.length === 0) return [];
    const { runs } = this.db.t;
    return (await this.db.read((q) => q.select().from(runs).where(inArray(runs.id, ids)))).map(toRecord);
  }

  private async checkParent(q: Orm, parentId: string, rootRunId: string, check: ParentCheck): Promise<void> {
    const { runs } = this.db.t;
    // A no-op update: it locks the parent's row until the transaction ends, and reads its state.
    const [locked] = await q.update(runs).set({ eventSeq: runs.eventSeq }).where(eq(runs.id, parentId)).returning({ status: runs.status });
    check.parentState(locked ? (locked.status as RunStatus) : null);
    const [counted] = await q
      .select({ n: count() })
      .from(runs)
      .where(and(eq(runs.rootRunId, rootRunId), eq(runs.parentRunId, parentId)));
    check.childCount(Number(counted?.n ?? 0), check.maxChildren);
  }

  /** Appends one event inside the caller's transaction; returns its seq. */
  async append(q: Orm, runId: string, event: NewEvent): Promise<number> {
    return (await this.appendAll(q, runId, [event]))!;
  }

  /**
   * Appends events to one run inside the caller's transaction: one statement takes their seq
   * numbers (and, with `leaseOwner`, checks the run is still that process's: false when not, and
   * nothing is written), one inserts them. Returns the last seq, or null when the lease check failed.
   */
  async appendAll(q: Orm, runId: string, batch: readonly NewEvent[], leaseOwner?: string): Promise<number | null> {
    const { runs, events } = this.db.t;
    const n = batch.length;
    const where = leaseOwner === undefined ? eq(runs.id, runId) : and(eq(runs.id, runId), eq(runs.leaseOwner, leaseOwner));
    const [counter] = await q
      .update(runs)
      .set({ eventSeq: sql`${runs.eventSeq} + ${n}` })
      .where(where)
      .returning({ seq: runs.eventSeq, rootRunId: runs.rootRunId, parentRunId: runs.parentRunId });
    if (!counter) {
      if (leaseOwner !== undefined) return null;
      throw new Error(`run ${runId} does not exist`);
    }
    if (n === 0) return counter.seq;
    const createdAt = new Date();
    await q.insert(events).values(
      batch.map((event, i) => ({
        id: crypto.randomUUID(),
        runId,
        rootRunId: counter.rootRunId,
        parentRunId: counter.parentRunId,
        seq: counter.seq - n + 1 + i,
        type: event.type,
        tickIndex: event.tickIndex ?? null,
        actor: event.actor,
        data: event.data ?? null,
        createdAt,
      })),
    );
    return counter.seq;
  }

  /** Appends many events to one run in one transaction (seeding, the agent loop's batches). */
  async appendMany(runId: string, batch: NewEvent[]): Promise<void> {
    await this.db.write((q) => this.appendAll(q, runId, batch));
    this.announce(runId);
  }
}
