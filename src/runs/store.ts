// Runs and their event log. Each event's `seq` comes from a per-run counter bumped in the same
// transaction, so concurrent appends to one run get distinct, increasing numbers on both databases.
import { and, count, eq, sql } from 'drizzle-orm';
import type { Database, Orm } from '../core/db/index.ts';
import type { NewEvent, RunRecord, RunStatus } from './record.ts';
import { isUuid } from '../core/lib/index.ts';

type RunRow = Database['t']['runs']['$inferSelect'];

/** What a new child run's parent must allow, checked with the parent locked; each throws to refuse. */
export interface ParentCheck {
  /** `null`: the parent is gone (deleted with its agent since it was read). */
  parentState(status: RunStatus | null): void;
  /** The parent's limit on child runs, if any. */
  maxChildren?: number;
  childCount(existing: number, max: number): void;
}
const toRecord = (row: RunRow): RunRecord => ({ ...row, status: row.status as RunStatus });

export class RunStore {
  constructor(private readonly db: Database) {}

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
   * writers), so concurrent children cannot pass the checks together.
   */
  async create(run: Omit<RunRecord, 'status' | 'stopReason' | 'startedAt' | 'endedAt' | 'tickCount'>, parent?: ParentCheck): Promise<RunRecord> {
    const record: RunRecord = { ...run, status: 'queued', stopReason: null, startedAt: null, endedAt: null, tickCount: 0 };
    await this.db.write(async (q) => {
      if (parent && run.parentRunId) await this.checkParent(q, run.parentRunId, run.rootRunId, parent);
      await q.insert(this.db.t.runs).values({ ...record, eventSeq: 0 });
      await this.append(q, record.id, { type: 'run.queued', actor: 'system', data: { createdBy: run.createdBy } });
    });
    return record;
  }

  private async checkParent(q: Orm, parentId: string, rootRunId: string, check: ParentCheck): Promise<void> {
    const { runs } = this.db.t;
    // A no-op update: it locks the parent's row until the transaction ends, and reads its state.
    const [locked] = await q.update(runs).set({ eventSeq: runs.eventSeq }).where(eq(runs.id, parentId)).returning({ status: runs.status });
    check.parentState(locked ? (locked.status as RunStatus) : null);
    if (check.maxChildren === undefined) return;
    const [counted] = await q
      .select({ n: count() })
      .from(runs)
      .where(and(eq(runs.rootRunId, rootRunId), eq(runs.parentRunId, parentId)));
    check.childCount(Number(counted?.n ?? 0), check.maxChildren);
  }

  /** Appends one event inside the caller's transaction; returns its seq. */
  async append(q: Orm, runId: string, event: NewEvent): Promise<number> {
    const { runs, events } = this.db.t;
    const [counter] = await q
      .update(runs)
      .set({ eventSeq: sql`${runs.eventSeq} + 1` })
      .where(eq(runs.id, runId))
      .returning({ seq: runs.eventSeq, rootRunId: runs.rootRunId, parentRunId: runs.parentRunId });
    if (!counter) throw new Error(`run ${runId} does not exist`);
    await q.insert(events).values({
      id: crypto.randomUUID(),
      runId,
      rootRunId: counter.rootRunId,
      parentRunId: counter.parentRunId,
      seq: counter.seq,
      type: event.type,
      tickIndex: event.tickIndex ?? null,
      actor: event.actor,
      data: event.data ?? null,
      createdAt: new Date(),
    });
    return counter.seq;
  }

  /** Appends many events to one run in one transaction (seeding, the agent loop's batches). */
  async appendMany(runId: string, batch: NewEvent[]): Promise<void> {
    await this.db.write(async (q) => {
      for (const event of batch) await this.append(q, runId, event);
    });
  }

  /**
   * Moves a run from `from` to `to` with an event, atomically; null when the run was no longer
   * in `from` (someone else moved it first).
   */
  async transition(id: string, from: RunStatus, to: RunStatus, event: NewEvent, fields: Partial<Pick<RunRecord, 'stopReason' | 'endedAt' | 'startedAt'>> = {}): Promise<RunRecord | null> {
    const { runs } = this.db.t;
    return this.db.write(async (q) => {
      const rows = await q.update(runs).set({ status: to, ...fields }).where(and(eq(runs.id, id), eq(runs.status, from))).returning();
      if (!rows[0]) return null;
      await this.append(q, id, event);
      return toRecord(rows[0]);
    });
  }
}
