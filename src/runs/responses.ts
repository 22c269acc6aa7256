// What the run routes answer (DESIGN §5): runs, events, approvals, memory records.
import { Type } from '@sinclair/typebox';
import { DateTime, Id, Nullable, projectionOf } from '../http/index.ts';

const RUN_STATES = ['queued', 'running', 'waiting_approval', 'cancelling', 'completed', 'failed', 'cancelled', 'timed_out'] as const;
const count = () => Type.Integer({ minimum: 0 });

export const RunJson = Type.Object(
  {
    id: Id(),
    agentId: Id(),
    workspaceId: Id(),
    rootRunId: Id(),
    parentRunId: Nullable(Id()),
    status: Type.Union(RUN_STATES.map((s) => Type.Literal(s))),
    stopReason: Nullable(Type.String()),
    mode: Type.String(),
    input: Type.Unknown(),
    output: Type.Unknown(),
    error: Nullable(Type.String()),
    tickCount: count(),
    usage: Type.Object({ ticks: count(), toolCalls: count(), promptTokens: count(), completionTokens: count() }, { additionalProperties: false }),
    queuePosition: Nullable(Type.Integer({ minimum: 1, description: "1-based among the agent's queued root runs" })),
    createdBy: Id(),
    createdAt: DateTime(),
    startedAt: Nullable(DateTime()),
    endedAt: Nullable(DateTime()),
  },
  { title: 'Run', additionalProperties: false },
);

const RunEventJson = Type.Object(
  {
    id: Id(),
    runId: Id(),
    rootRunId: Id(),
    parentRunId: Nullable(Id()),
    seq: Type.Integer({ minimum: 1 }),
    type: Type.String({ description: '`run.queued`, `run.started`, `tick.started`, `tool.call`, … (DESIGN §5)' }),
    tickIndex: Nullable(Type.Integer({ minimum: 0 })),
    actor: Type.String(),
    data: Type.Unknown(),
    createdAt: DateTime(),
  },
  { title: 'RunEvent' },
);

export const ApprovalJson = Type.Object(
  {
    id: Id(),
    runId: Id(),
    kind: Type.String({ description: '`tool_call` or `plan`' }),
    toolCallId: Nullable(Type.String()),
    toolName: Nullable(Type.String()),
    args: Type.Unknown(),
    status: Type.Union(['pending', 'approved', 'rejected', 'expired'].map((s) => Type.Literal(s))),
    requestedAt: DateTime(),
    expiresAt: DateTime(),
    resolvedAt: Nullable(DateTime()),
    resolvedBy: Nullable(Id()),
    reason: Nullable(Type.String()),
  },
  { title: 'Approval', additionalProperties: false },
);

export const ApprovalListJson = Type.Object({ data: Type.Array(Type.Ref('#/components/schemas/Approval')) }, { title: 'ApprovalList', additionalProperties: false });

const MemoryRecordJson = Type.Object(
  { id: Id(), agentId: Id(), runId: Id(), summary: Type.String(), createdAt: DateTime() },
  { title: 'MemoryRecord' },
);

export const RunProjection = projectionOf(RunJson);
export const RunEventProjection = projectionOf(RunEventJson);
export const MemoryRecordProjection = projectionOf(MemoryRecordJson);

export const runResponseSchemas = [RunProjection, RunEventProjection, MemoryRecordProjection, RunJson, ApprovalJson, ApprovalListJson];
