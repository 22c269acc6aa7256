// One run executed by this process while it holds the run's lease (DESIGN §5): ticks until the
// run ends, waits for its delegated children, pauses with its agent, and finishes a cancellation.
// Every state change and event is written as it happens; after a takeover the run goes on from
// its last completed tick (the interrupted one starts again).
import type { AgentRecord } from '../../agents/record.ts';
import type { NewEvent, RunStatus } from '../record.ts';
import { assembleContext, recallWithin, type ConversationEntry } from '../context.ts';
import { memoryLimits, runLimits } from '../limits.ts';
import { ModelError, type ModelAction, type ModelProvider, type ToolSpec } from '../models/types.ts';
import type { EngineRun, EngineStore, RunState } from './store.ts';
import { sleep, yieldToEventLoop, type Signals } from './signals.ts';
import type { Logger } from '../../core/log.ts';
import type { ApprovalStore } from '../approvals.ts';

/** How often a waiting run looks at the database for what other processes did. */
const WAIT_POLL_MS = 250;
const MEMORY_SUMMARY_CHARS = 2000;

export interface ToolCallRequest {
  run: EngineRun;
  agent: AgentRecord;
  tickIndex: number;
  /** The call's place in its tick (a tick that runs again finds its calls by it). */
  callIndex: number;
  call: { id?: string; name: string; args: Record<string, unknown> };
  signal: AbortSignal;
  /** Appends the call's events to the run (fenced by the lease). */
  emit(events: NewEvent[]): Promise<void>;
  /**
   * Asks a person to approve the call (or goes on waiting for the approval asked before a
   * takeover) and waits: the run is waiting_approval meanwhile. `aborted`: the run was cancelled,
   * or the approval expired and the run has failed.
   */
  approve(ask: { toolCallId: string; name: string; args: Record<string, unknown>; existing: string | null }): Promise<'approved' | 'rejected' | 'aborted'>;
}

/** Runs the tools a model calls; the engine's loop is the same whatever stands behind it. */
export interface ToolHost {
  /** The tools the agent's registry offers the model. */
  list(agent: AgentRecord): Promise<ToolSpec[]>;
  /** Runs one call, emitting its tool_call.* events; returns what the model sees of its outcome. */
  call(request: ToolCallRequest): Promise<{ ok: boolean; text: string }>;
}

/** A host with no tools: every call fails UNKNOWN_TOOL. */
export const noTools: ToolHost = {
  async list() {
    return [];
  },
  async call({ call, emit }) {
    const toolCallId = crypto.randomUUID();
    await emit([
      { type: 'tool_call.requested', actor: 'agent', data: { toolCallId, name: call.name, args: call.args } },
      { type: 'tool_call.failed', actor: 'system', data: { toolCallId, name: call.name, code: 'UNKNOWN_TOOL' } },
    ]);
    return { ok: false, text: JSON.stringify({ tool: call.name, error: 'UNKNOWN_TOOL' }) };
  },
};

export interface ExecutionDeps {
  store: EngineStore;
  approvals: ApprovalStore;
  signals: Signals;
  log: Logger;
  model(agent: AgentRecord): { name: string; provider: ModelProvider };
  tools: ToolHost;
  /** Wakes the scheduler (a run ended: its place is free). */
  wake(): void;
}

const FINAL: readonly RunStatus[] = ['completed', 'failed', 'cancelled', 'timed_out'];

export class RunExecution {
  /** Aborts the tick in flight (a cancellation, or the process stopping). */
  private tick = new AbortController();
  private stopped = false;

  constructor(
    private readonly deps: ExecutionDeps,
    readonly runId: string,
  ) {}

  /** The run was cancelled (or lost): abort what it does now. */
  interrupt(): void {
    this.tick.abort();
    this.deps.signals.notify(this.runId);
  }

  /** The process stops: abort the tick, write nothing more. */
  stop(): void {
    this.stopped = true;
    this.interrupt();
  }

  async execute(takenOver: boolean): Promise<void> {
    const { store } = this.deps;
    if (takenOver) await store.write(this.runId, [{ type: 'run.resumed', actor: 'system', data: { takenOver: true } }]);
    while (!this.stopped) {
      // SQLite answers synchronously: without a turn of the event loop between steps, a run of
      // quick ticks would hold the process (requests, timers, cancels) until it ends.
      await yieldToEventLoop();
      if (this.tick.signal.aborted) this.tick = new AbortController();
      const run = await store.load(this.runId);
      if (!run || FINAL.includes(run.status)) return;
      if (run.status === 'cancelling') return this.finishCancelled(run);
      const agentRow = await store.agent(run.agentId);
      if (!agentRow) return;
      const agent = agentRow as unknown as AgentRecord;
      if (agent.status === 'DISABLED') {
        await store.move(run.id, ['running', 'waiting_approval'], 'cancelling', [{ type: 'run.cancelling', actor: 'system', data: { reason: 'agent_disabled' } }], { cancelReason: 'agent_disabled' });
        continue;
      }
      const state: RunState = run.state ?? { conversation: [] };
      if (state.waitingChildren !== undefined) {
        await this.awaitChildren(run, agent, state);
        continue;
      }
      if (agent.status === 'PAUSED') {
        if (!state.paused) await store.write(run.id, [{ type: 'run.paused', actor: 'system', data: {} }], { state: { ...state, paused: true } });
        await this.deps.signals.wait(run.id, WAIT_POLL_MS, this.tick.signal);
        continue;
      }
      if (state.paused) {
        const { paused: _, ...rest } = state;
        await store.write(run.id, [{ type: 'run.resumed', actor: 'system', data: {} }], { state: rest });
        continue;
      }
      if (!state.planApproved && agent.config.planningPolicy === 'review_required' && run.mode === 'interactive') {
        await this.reviewPlan(run, state);
        continue;
      }
      await this.nextTick(run, agent, state);
    }
  }

  private async nextTick(run: EngineRun, agent: AgentRecord, state: RunState): Promise<void> {
    const { store } = this.deps;
    const { name: modelName, provider: model } = this.deps.model(agent);
    const tickIndex = run.tickCount;
    if (model.finished(run, tickIndex)) return this.finish(run, agent, null);
    const limits = runLimits(agent);
    if (tickIndex >= limits.maxTicks) {
      await store.move(run.id, ['running', 'waiting_approval'], 'timed_out', [{ type: 'run.timed_out', actor: 'system', data: { stopReason: 'max_ticks', maxTicks: limits.maxTicks } }], { stopReason: 'max_ticks' });
      this.ended(run);
      return;
    }
    const memory = memoryLimits(agent);
    const recalled = memory.enabled ? recallWithin(await store.recall(agent.id, memory.maxRecallEntries), memory.maxRecallEntries, memory.maxRecallChars) : [];
    const conversation = state.conversation.length > 0 ? state.conversation : [{ role: 'user' as const, text: JSON.stringify(run.input ?? null) }];
    const context = assembleContext(agent, run, recalled, conversation);
    this.tick = new AbortController();
    const signal = this.tick.signal;
    await store.write(run.id, [{ type: 'tick.started', actor: 'system', tickIndex, data: { context: { sections: context.parts.map((p) => p.section), promptChars: context.promptChars, memory: context.memory } } }]);

    let turn;
    try {
      const tools = await this.deps.tools.list(agent);
      const reasoningEffort = typeof agent.config.reasoningEffort === 'string' ? agent.config.reasoningEffort : undefined;
      turn = await model.turn({ run, tickIndex, model: modelName, ...(reasoningEffort ? { reasoningEffort } : {}), context, conversation, tools, signal });
    } catch (error) {
      if (signal.aborted) return; // cancelled or stopping: the loop finds out which
      const message = error instanceof ModelError ? error.message : 'The model failed';
      if (!(error instanceof ModelError)) this.deps.log.error('model failed', { runId: run.id, error: String(error) });
      await store.move(run.id, ['running', 'waiting_approval'], 'failed', [{ type: 'run.failed', actor: 'system', tickIndex, data: { stopReason: 'model_error', error: message } }], { stopReason: 'model_error', error: message });
      this.ended(run);
      return;
    }

    const added: ConversationEntry[] = [];
    let outcome: { kind: 'finish'; value: unknown } | { kind: 'fail'; message: string } | null = null;
    let waitingChildren: number | undefined;
    let toolCalls = 0;
    const emit = (events: NewEvent[]) => store.write(run.id, events.map((e) => ({ ...e, tickIndex })));
    for (const action of turn.actions) {
      if (signal.aborted) return;
      const result = await this.act(run, agent, tickIndex, action, context, emit, signal);
      if (signal.aborted) return;
      added.push(...result.added);
      toolCalls += result.toolCalls;
      if (result.spawned) waitingChildren = tickIndex;
      if (action.kind === 'finish') outcome = { kind: 'finish', value: action.value };
      if (action.kind === 'fail') outcome = { kind: 'fail', message: action.message };
    }
    if (signal.aborted) return;
    const next: RunState = { ...state, conversation: [...conversation, ...added], ...(waitingChildren !== undefined ? { waitingChildren, reported: [] } : {}) };
    const tickEnd: NewEvent[] = [
      { type: 'usage.reported', actor: 'system', tickIndex, data: turn.usage },
      { type: 'tick.completed', actor: 'system', tickIndex, data: {} },
    ];
    const counted = {
      tickCount: tickIndex + 1,
      toolCalls: run.toolCalls + toolCalls,
      promptTokens: run.promptTokens + turn.usage.promptTokens,
      completionTokens: run.completionTokens + turn.usage.completionTokens,
      state: next,
    };
    // A tick that ends the run ends it in the same transaction as tick.completed: a process that
    // stops in between must not leave a run whose next tick finds nothing left to play.
    if (outcome?.kind === 'finish') return this.finish(run, agent, outcome.value, tickEnd, counted);
    if (outcome?.kind === 'fail') {
      await store.move(run.id, ['running', 'waiting_approval'], 'failed', [...tickEnd, { type: 'run.failed', actor: 'system', data: { stopReason: 'model_error', error: outcome.message } }], { ...counted, stopReason: 'model_error', error: outcome.message });
      this.ended(run);
      return;
    }
    await store.write(run.id, tickEnd, counted);
  }

  private async act(
    run: EngineRun,
    agent: AgentRecord,
    tickIndex: number,
    action: ModelAction,
    context: ReturnType<typeof assembleContext>,
    emit: (events: NewEvent[]) => Promise<void>,
    signal: AbortSignal,
  ): Promise<{ added: ConversationEntry[]; toolCalls: number; spawned?: boolean }> {
    switch (action.kind) {
      case 'say':
        await emit([{ type: 'message.created', actor: 'agent', data: { role: 'assistant', text: action.text } }]);
        return { added: [{ role: 'assistant', text: action.text }], toolCalls: 0 };
      case 'echoContext': {
        const text = JSON.stringify(context.parts);
        await emit([{ type: 'message.created', actor: 'agent', data: { role: 'assistant', text, context: context.parts } }]);
        return { added: [{ role: 'assistant', text: '(context echoed)' }], toolCalls: 0 };
      }
      case 'sleep':
        await sleep(action.ms, signal);
        return { added: [], toolCalls: 0 };
      case 'finish':
      case 'fail':
        return { added: [], toolCalls: 0 };
      case 'tools': {
        const calls = action.calls.map((c, i) => ({ ...c, id: c.id ?? `call_${tickIndex}_${i}` }));
        const added: ConversationEntry[] = [{ role: 'assistant', text: '', calls }];
        for (const [callIndex, call] of calls.entries()) {
          if (signal.aborted) break;
          const approve = (ask: Parameters<ToolCallRequest['approve']>[0]) => this.approveToolCall(run, tickIndex, ask);
          const outcome = await this.deps.tools.call({ run, agent, tickIndex, callIndex, call, signal, emit, approve });
          added.push({ role: 'tool', text: outcome.text, toolCallId: call.id, name: call.name });
        }
        return { added, toolCalls: calls.length };
      }
      case 'delegate': {
        const { maxChildRuns } = runLimits(agent);
        let spawned = false;
        // A tick that runs again after a takeover finds the children it spawned before.
        const before = new Set((await this.deps.store.children(run.id, tickIndex)).map((c) => c.spawnIndex));
        for (const [index, input] of action.inputs.entries()) {
          if (before.has(index)) {
            spawned = true;
            continue;
          }
          if ((await this.deps.store.spawnChild(run, tickIndex, index, input, maxChildRuns)) === 'limit') {
            await emit([{ type: 'error', actor: 'system', data: { code: 'MAX_CHILD_RUNS', maxChildRuns, message: `The run already has ${maxChildRuns} child runs, its maxChildRuns` } }]);
            continue;
          }
          spawned = true;
        }
        if (spawned) this.deps.wake();
        return { added: [], toolCalls: 0, spawned };
      }
    }
  }

  /**
   * Plan review (planningPolicy review_required, mode interactive): before the first tick the plan
   * is proposed as an approval of kind `plan` (`scripted` proposes input.plan, else the script's
   * steps, else []); nothing runs until it is approved; rejected → failed with plan_rejected.
   * A plan is not a tick.
   */
  private async reviewPlan(run: EngineRun, state: RunState): Promise<void> {
    const { store, approvals } = this.deps;
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
    this.ended(run);
  }

  /** A tool call's approval: asked once (tool_call.approval_requested, run.waiting_approval), then waited for. */
  private async approveToolCall(run: EngineRun, tickIndex: number, ask: Parameters<ToolCallRequest['approve']>[0]): Promise<'approved' | 'rejected' | 'aborted'> {
    const { store, approvals } = this.deps;
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
    await this.deps.store.move(run.id, ['waiting_approval'], 'failed', [{ type: 'run.failed', actor: 'system', tickIndex, data: { stopReason: 'approval_expired', error: 'An approval expired' } }], { stopReason: 'approval_expired', error: 'An approval expired' });
    this.ended(run);
    this.tick.abort();
  }

  /**
   * Waits for a person's decision on an approval. A pending one past its deadline expires here; a
   * resolution made while the agent is PAUSED is acted on once it is ACTIVE again.
   */
  private async decision(run: EngineRun, approvalId: string): Promise<'approved' | 'rejected' | 'expired' | 'aborted'> {
    const { approvals, store, signals } = this.deps;
    for (;;) {
      if (this.tick.signal.aborted || this.stopped) return 'aborted';
      const row = await approvals.get(approvalId);
      if (!row) return 'aborted';
      const now = Date.now();
      if (row.status === 'pending') {
        if (row.expiresAt.getTime() <= now) {
          await approvals.expire(approvalId);
          continue;
        }
        await signals.wait(run.id, Math.min(WAIT_POLL_MS, row.expiresAt.getTime() - now + 5), this.tick.signal);
        continue;
      }
      if (row.status === 'expired') return 'expired';
      if ((await store.agent(run.agentId))?.status === 'PAUSED') {
        await signals.wait(run.id, WAIT_POLL_MS, this.tick.signal);
        continue;
      }
      return row.status;
    }
  }

  /**
   * Waits for the children the last tick delegated to: records each outcome once
   * (child_run.completed / failed); under fail_parent a failed child cancels its unfinished
   * siblings and fails the run; when all have ended the run goes on with their results.
   */
  private async awaitChildren(run: EngineRun, agent: AgentRecord, state: RunState): Promise<void> {
    const { store } = this.deps;
    const tick = state.waitingChildren!;
    const children = await store.children(run.id, tick);
    const reported = new Set(state.reported ?? []);
    const ended = children.filter((c) => FINAL.includes(c.status) && !reported.has(c.id));
    if (ended.length === 0 && children.some((c) => !FINAL.includes(c.status))) {
      await this.deps.signals.wait(run.id, WAIT_POLL_MS, this.tick.signal);
      return;
    }
    const events: NewEvent[] = [];
    const added: ConversationEntry[] = [];
    let failed = false;
    for (const child of ended) {
      reported.add(child.id);
      const ok = child.status === 'completed';
      if (!ok) failed = true;
      events.push({ type: ok ? 'child_run.completed' : 'child_run.failed', actor: 'system', data: { childRunId: child.id, status: child.status, ...(ok ? {} : { stopReason: child.stopReason, error: child.error }) } });
      added.push({ role: 'child', text: JSON.stringify(ok ? { childRunId: child.id, output: child.output ?? null } : { childRunId: child.id, status: child.status, error: child.error }) });
    }
    const allEnded = children.every((c) => reported.has(c.id));
    const next: RunState = { ...state, conversation: [...state.conversation, ...added], reported: [...reported] };
    // Any failed child counts, reported now or before a takeover that came between its report and
    // the parent's failure.
    if (children.some((c) => FINAL.includes(c.status) && c.status !== 'completed')) failed = true;
    if (failed && runLimits(agent).childFailureMode === 'fail_parent') {
      await store.write(run.id, events, { state: next });
      for (const id of await store.unfinishedDescendants(run)) await store.stopOther(id, 'parent_cancelled', 'system');
      for (const child of children) this.deps.signals.notify(child.id);
      await store.move(run.id, ['running', 'waiting_approval'], 'failed', [{ type: 'run.failed', actor: 'system', data: { stopReason: 'child_failed', error: 'A child run failed' } }], { stopReason: 'child_failed', error: 'A child run failed' });
      this.ended(run);
      return;
    }
    if (allEnded) {
      const { waitingChildren: _, reported: __, ...rest } = next;
      await store.write(run.id, events, { state: rest });
    } else {
      await store.write(run.id, events, { state: next });
    }
  }

  /** Completes the run: a root run with memory on stores its output first (memory.stored). */
  private async finish(run: EngineRun, agent: AgentRecord, output: unknown, before: NewEvent[] = [], fields: Partial<EngineRun> = {}): Promise<void> {
    const { store } = this.deps;
    const remember = run.parentRunId === null && memoryLimits(agent).enabled;
    const summary = JSON.stringify(output ?? null).slice(0, MEMORY_SUMMARY_CHARS);
    const memoryId = crypto.randomUUID();
    await store.move(
      run.id,
      ['running', 'waiting_approval'],
      'completed',
      [
        ...before,
        ...(remember ? [{ type: 'memory.stored', actor: 'system', data: { memoryId, chars: summary.length } }] : []),
        { type: 'run.completed', actor: 'system', data: { stopReason: 'completed', output: output ?? null } },
      ],
      { ...fields, stopReason: 'completed', output: output ?? null },
      remember ? (q) => store.remember(q, memoryId, run, summary) : undefined,
    );
    this.ended(run);
  }

  /** Finishes a cancelling run: its unfinished descendants follow, then run.cancelled. */
  private async finishCancelled(run: EngineRun): Promise<void> {
    const { store } = this.deps;
    for (const id of await store.unfinishedDescendants(run)) {
      await store.stopOther(id, 'parent_cancelled', 'system');
      this.deps.signals.notify(id);
    }
    const stopReason = run.cancelReason ?? 'cancelled';
    await store.move(run.id, ['cancelling'], 'cancelled', [{ type: 'run.cancelled', actor: 'system', data: { stopReason } }], { stopReason }, (q) => this.deps.approvals.closeRun(q, run.id, 'The run was cancelled'));
    this.ended(run);
  }

  private ended(run: EngineRun): void {
    if (run.parentRunId) this.deps.signals.notify(run.parentRunId);
    this.deps.wake();
  }
}
