// Approvals as the engine waits for them (DESIGN §5 Approvals): plan review before the first tick,
// and a tool call's approval inside its tick. Asked once, in the transaction that moves the run to
// waiting_approval; waited for by polling the approval (a resolution made anywhere is seen); acted
// on once the agent is ACTIVE; an expired one fails the run.
import type { EngineRun, RunState } from './store.ts';
import type { ExecutionDeps } from './execution.ts';
import type { ToolCallRequest } from './tool-host.ts';

/** How often a waiting run looks at its approval. */
const WAIT_POLL_MS = 250;

/** What the gate needs of the execution it serves. */
export interface GateContext {
  deps: ExecutionDeps;
  /** The tick's signal: aborted by a cancellation. */
  signal(): AbortSignal;
  stopped(): boolean;
  ended(run: EngineRun): void;
  abortTick(): void;
}

export class ApprovalGate {
  constructor(private readonly x: GateContext) {}

  /**
   * Plan review (planningPolicy review_required, mode interactive): before the first tick the plan
   * is proposed as an approval of kind `plan` (`scripted` proposes input.plan, else the script's
   * steps, else []); nothing runs until it is approved; rejected → failed with plan_rejected.
   * A plan is not a tick.
   */
  async reviewPlan(run: EngineRun, state: RunState): Promise<void> {
    const { store, approvals } = this.x.deps;
    let approvalId = state.planApprovalId;
    if (!approvalId) {
      const input = run.input as { plan?: unknown; script?: unknown } | null;
      const plan = input?.plan !== undefined ? input.plan : Array.isArray(input?.script) ? input.script : [];
      const row = approvals.draft({ runId: run.id, kind: 'plan', toolCallId: null, toolName: null, args: null, plan, timeoutMs: run.approvalTimeoutMs });
      const moved = await store.move(
        run.id,
        ['running'],
        'waiting_approval',
        [
          { type: 'plan.proposed', actor: 'agent', data: { approvalId: row.id, plan, expiresAt: row.expiresAt.toISOString() } },
          { type: 'run.waiting_approval', actor: 'system', data: { approvalId: row.id, kind: 'plan' } },
        ],
        { state: { ...state, planApprovalId: row.id } },
        (q) => approvals.insertRow(q, row),
      );
      if (!moved) return;
      approvalId = row.id;
    }
    const decision = await this.decision(run, approvalId);
    if (decision === 'aborted') return;
    if (decision === 'expired') return this.expired(run, null);
    const resolved = (await approvals.get(approvalId))!;
    const resolvedEvent = { type: 'plan.resolved', actor: resolved.resolvedBy ?? 'system', data: { approvalId, decision, by: resolved.resolvedBy, ...(resolved.reason ? { reason: resolved.reason } : {}) } };
    if (decision === 'approved') {
      await store.move(run.id, ['waiting_approval'], 'running', [resolvedEvent, { type: 'run.resumed', actor: 'system', data: { approvalId } }], { state: { ...state, planApprovalId: approvalId, planApproved: true } });
      return;
    }
    await store.move(run.id, ['waiting_approval'], 'failed', [resolvedEvent, { type: 'run.failed', actor: 'system', data: { stopReason: 'plan_rejected', error: 'The plan was rejected' } }], { stopReason: 'plan_rejected', error: 'The plan was rejected' });
    this.x.ended(run);
  }

  /** A tool call's approval: asked once (tool_call.approval_requested, run.waiting_approval), then waited for. */
  async approveToolCall(run: EngineRun, tickIndex: number, ask: Parameters<ToolCallRequest['approve']>[0]): Promise<'approved' | 'rejected' | 'aborted'> {
    const { store, approvals } = this.x.deps;
    let approvalId = ask.existing;
    if (!approvalId) {
      const row = approvals.draft({ runId: run.id, kind: 'tool_call', toolCallId: ask.toolCallId, toolName: ask.name, args: ask.args, plan: null, timeoutMs: run.approvalTimeoutMs });
      const moved = await store.move(
        run.id,
        ['running'],
        'waiting_approval',
        [
          { type: 'tool_call.approval_requested', actor: 'system', tickIndex, data: { toolCallId: ask.toolCallId, approvalId: row.id, expiresAt: row.expiresAt.toISOString() } },
          { type: 'run.waiting_approval', actor: 'system', tickIndex, data: { approvalId: row.id, kind: 'tool_call' } },
        ],
        {},
        (q) => approvals.insertRow(q, row),
      );
      if (!moved) return 'aborted';
      approvalId = row.id;
    }
    const decision = await this.decision(run, approvalId);
    if (decision === 'aborted') return 'aborted';
    if (decision === 'expired') {
      await this.expired(run, tickIndex);
      return 'aborted';
    }
    const resolved = (await approvals.get(approvalId))!;
    const moved = await store.move(run.id, ['waiting_approval'], 'running', [
      { type: 'tool_call.approval_resolved', actor: resolved.resolvedBy ?? 'system', tickIndex, data: { toolCallId: ask.toolCallId, approvalId, decision, by: resolved.resolvedBy, ...(resolved.reason ? { reason: resolved.reason } : {}) } },
      { type: 'run.resumed', actor: 'system', tickIndex, data: { approvalId } },
    ]);
    return moved ? decision : 'aborted';
  }

  /** The approval expired: the run fails (approval_expired) and the tick ends. */
  private async expired(run: EngineRun, tickIndex: number | null): Promise<void> {
    await this.x.deps.store.move(run.id, ['waiting_approval'], 'failed', [{ type: 'run.failed', actor: 'system', tickIndex, data: { stopReason: 'approval_expired', error: 'An approval expired' } }], { stopReason: 'approval_expired', error: 'An approval expired' });
    this.x.ended(run);
    this.x.abortTick();
  }

  /**
   * Waits for a person's decision on an approval. A pending one past its deadline expires here; a
   * resolution made while the agent is PAUSED is acted on once it is ACTIVE again.
   */
  private async decision(run: EngineRun, approvalId: string): Promise<'approved' | 'rejected' | 'expired' | 'aborted'> {
    const { approvals, store, signals } = this.x.deps;
    for (;;) {
      if (this.x.signal().aborted || this.x.stopped()) return 'aborted';
      const row = await approvals.get(approvalId);
      if (!row) return 'aborted';
      const now = Date.now();
      if (row.status === 'pending') {
        if (row.expiresAt.getTime() <= now) {
          await approvals.expire(approvalId);
          continue;
        }
        await signals.wait(run.id, Math.min(WAIT_POLL_MS, row.expiresAt.getTime() - now + 5), this.x.signal());
        continue;
      }
      if (row.status === 'expired') return 'expired';
      if ((await store.agent(run.agentId))?.status === 'PAUSED') {
        await signals.wait(run.id, WAIT_POLL_MS, this.x.signal());
        continue;
      }
      return row.status;
    }
  }
}
