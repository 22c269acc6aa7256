// The tool calls of the runs a process executes (DESIGN §5 Tools, at most once): one row per call
// of a tick, every write fenced by the run's lease through the engine's store.
import { and, desc, eq } from 'drizzle-orm';
import type { Database, Orm } from '../../core/db/index.ts';
import type { NewEvent, RunStore } from '../index.ts';

export type ToolCallRow = Database['t']['toolCalls']['$inferSelect'];

/** A run's record of its tool calls, every write fenced by the run's lease. */
export class ToolCallLedger {
  constructor(
    private readonly db: Database,
    private readonly runs: RunStore,
    private readonly fenced: (runId: string, events: NewEvent[], also: (q: Orm) => Promise<void>) => Promise<void>,
  ) {}

  async find(runId: string, tickIndex: number, callIndex: number): Promise<ToolCallRow | null> {
    const { toolCalls } = this.db.t;
    const [row] = await this.db.read((q) => q.select().from(toolCalls).where(and(eq(toolCalls.runId, runId), eq(toolCalls.tickIndex, tickIndex), eq(toolCalls.callIndex, callIndex))));
    return row ?? null;
  }

  /** Records a new call with its events (tool_call.requested). */
  async insert(row: ToolCallRow, events: NewEvent[]): Promise<void> {
    await this.fenced(row.runId, events, async (q) => void (await q.insert(this.db.t.toolCalls).values(row)));
  }

  /** Updates a call with its events. */
  async update(runId: string, id: string, fields: Partial<ToolCallRow>, events: NewEvent[]): Promise<void> {
    const { toolCalls } = this.db.t;
    await this.fenced(runId, events, async (q) => void (await q.update(toolCalls).set(fields).where(eq(toolCalls.id, id))));
  }

  /** The pending-or-resolved approval of a call, if one was asked. */
  async approvalOf(toolCallId: string): Promise<string | null> {
    const { approvals } = this.db.t;
    const [row] = await this.db.read((q) => q.select({ id: approvals.id }).from(approvals).where(eq(approvals.toolCallId, toolCallId)).orderBy(desc(approvals.requestedAt)).limit(1));
    return row?.id ?? null;
  }

  get store(): RunStore {
    return this.runs;
  }
}
