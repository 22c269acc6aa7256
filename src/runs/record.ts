// Agent runs and their events (DESIGN §5).

const RUN_STATES = ['queued', 'running', 'waiting_approval', 'cancelling', 'completed', 'failed', 'cancelled', 'timed_out'] as const;
export type RunStatus = (typeof RUN_STATES)[number];
export const FINAL_STATES: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'cancelled', 'timed_out']);

export interface RunRecord {
  id: string;
  agentId: string;
  workspaceId: string;
  rootRunId: string;
  parentRunId: string | null;
  status: RunStatus;
  stopReason: string | null;
  input: unknown;
  createdBy: string;
  createdAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  tickCount: number;
}

export interface NewEvent {
  type: string;
  actor: string;
  tickIndex?: number | null;
  data?: unknown;
}

export const runJson = (r: RunRecord) => ({
  id: r.id,
  agentId: r.agentId,
  rootRunId: r.rootRunId,
  parentRunId: r.parentRunId,
  status: r.status,
  stopReason: r.stopReason,
  input: r.input ?? null,
  createdAt: r.createdAt.toISOString(),
  startedAt: r.startedAt?.toISOString() ?? null,
  endedAt: r.endedAt?.toISOString() ?? null,
});
