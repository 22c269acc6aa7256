// Agent runs and their events (DESIGN §5).

const RUN_STATES = ['queued', 'running', 'waiting_approval', 'cancelling', 'completed', 'failed', 'cancelled', 'timed_out'] as const;
export type RunStatus = (typeof RUN_STATES)[number];
export const FINAL_STATES: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'cancelled', 'timed_out']);
/** States that hold one of the agent's active places (maxActiveRootRuns, maxConcurrentChildRuns). */
export const ACTIVE_STATES = ['running', 'waiting_approval', 'cancelling'] as const satisfies readonly RunStatus[];

export interface RunUsage {
  ticks: number;
  toolCalls: number;
  promptTokens: number;
  completionTokens: number;
}

export interface RunRecord {
  id: string;
  agentId: string;
  workspaceId: string;
  rootRunId: string;
  parentRunId: string | null;
  status: RunStatus;
  stopReason: string | null;
  mode: string;
  input: unknown;
  output: unknown;
  error: string | null;
  createdBy: string;
  createdAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  tickCount: number;
  toolCalls: number;
  promptTokens: number;
  completionTokens: number;
  approvalTimeoutMs: number;
}

export interface NewEvent {
  type: string;
  actor: string;
  tickIndex?: number | null;
  data?: unknown;
}

const runUsage = (r: RunRecord): RunUsage => ({ ticks: r.tickCount, toolCalls: r.toolCalls, promptTokens: r.promptTokens, completionTokens: r.completionTokens });

/** The run as the API shows it; `queuePosition` is 1-based among the agent's queued root runs, else null. */
export const runJson = (r: RunRecord, queuePosition: number | null = null) => ({
  id: r.id,
  agentId: r.agentId,
  workspaceId: r.workspaceId,
  rootRunId: r.rootRunId,
  parentRunId: r.parentRunId,
  status: r.status,
  stopReason: r.stopReason,
  mode: r.mode,
  input: r.input ?? null,
  output: r.output ?? null,
  error: r.error,
  tickCount: r.tickCount,
  usage: runUsage(r),
  queuePosition,
  createdBy: r.createdBy,
  createdAt: r.createdAt.toISOString(),
  startedAt: r.startedAt?.toISOString() ?? null,
  endedAt: r.endedAt?.toISOString() ?? null,
});
