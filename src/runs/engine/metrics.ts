// The run engine's metrics (DESIGN §12): ticks and tool calls as this process plays them (counters
// and duration histograms), and, read from the database at scrape time, runs by status, the queue
// and pending approvals.
import { sql } from 'drizzle-orm';
import type { Database } from '../../core/db/index.ts';
import type { OriginMetrics } from '../../core/metrics/index.ts';

export type TickOutcome = 'completed' | 'failed' | 'aborted';
type ToolCallOutcome = 'ok' | 'failed';

/** What the engine reports as it plays runs. */
export interface EngineObserver {
  /** A tick ended: tick.completed written, the model failed, or aborted (a cancel, a lost lease, the process stopping). */
  tickEnded(outcome: TickOutcome, seconds: number): void;
  /** A tool call ended (its approval wait, if any, included). */
  toolCallEnded(outcome: ToolCallOutcome, seconds: number): void;
}

export const unobserved: EngineObserver = { tickEnded() {}, toolCallEnded() {} };

/** Ticks minutes long (a model thinking, a tool waiting) are normal: wider buckets than requests'. */
const RUN_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

const STATUSES = ['queued', 'running', 'waiting_approval', 'cancelling', 'completed', 'failed', 'cancelled', 'timed_out'] as const;

/** The engine's counters and histograms on `metrics`, as the observer the engine reports to. */
export function engineObserver(metrics: OriginMetrics): EngineObserver {
  const ticks = metrics.counter('agent_run_ticks_total', 'Ticks of agent runs played by this process, by outcome', ['outcome']);
  const tickSeconds = metrics.histogram('agent_run_tick_duration_seconds', 'Duration of a tick of an agent run, from tick.started to its end', [], RUN_BUCKETS);
  const calls = metrics.counter('agent_run_tool_calls_total', 'Tool calls of agent runs made by this process, by outcome', ['outcome']);
  const callSeconds = metrics.histogram('agent_run_tool_call_duration_seconds', 'Duration of a tool call of an agent run (an approval wait included)', [], RUN_BUCKETS);
  return {
    tickEnded(outcome, seconds) {
      ticks.inc({ outcome });
      tickSeconds.observe(seconds);
    },
    toolCallEnded(outcome, seconds) {
      calls.inc({ outcome });
      callSeconds.observe(seconds);
    },
  };
}

/**
 * Gauges of every process's runs, from the database (counts on the status index, on SQLite on a
 * reader thread as list queries are): runs by status, the queue, pending approvals.
 */
export function runGauges(metrics: OriginMetrics, db: Database): void {
  metrics.gauge('agent_runs', 'Agent runs by status (all processes; finished ones until deleted with their agent)', ['status'], async () => {
    const rows = await db.runner.all(sql`SELECT status, count(*) AS n FROM runs GROUP BY status`);
    const counts = new Map(rows.map((r) => [String(r.status), Number(r.n)]));
    return STATUSES.map((status) => [{ status }, counts.get(status) ?? 0] as const);
  });
  metrics.gauge('agent_run_queue_depth', 'Agent runs queued, waiting for a place to start (all processes)', [], async () => {
    const rows = await db.runner.all(sql`SELECT count(*) AS n FROM runs WHERE status = 'queued'`);
    return [[{}, Number(rows[0]?.n ?? 0)]];
  });
  metrics.gauge('agent_run_pending_approvals', 'Approvals of tool calls and plans waiting for a person (all processes)', [], async () => {
    const rows = await db.runner.all(sql`SELECT count(*) AS n FROM approvals WHERE status = 'pending'`);
    return [[{}, Number(rows[0]?.n ?? 0)]];
  });
}
