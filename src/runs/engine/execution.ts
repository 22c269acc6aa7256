// One run executed by this process while it holds the run's lease (DESIGN §5): ticks until the
// run ends, waits for its delegated children, pauses with its agent, and finishes a cancellation.
// Every state change and event is written as it happens; after a takeover the run goes on from
// its last completed tick (the interrupted one starts again).
import type { AgentRecord } from '../../agents/index.ts';
import type { NewEvent, RunStatus } from '../index.ts';
import { assembleContext, recallWithin, type ConversationEntry } from '../index.ts';
import { memoryLimits, runLimits } from '../index.ts';
import { ModelError, type ModelAction, type ModelProvider } from '../models/index.ts';
import { ApprovalGate } from './approval-gate.ts';
import type { ToolCallRequest, ToolHost } from './tool-host.ts';
import type { EngineRun, EngineStore, RunState } from './store.ts';
import { sleep, yieldToEventLoop, type Signals } from './signals.ts';
import type { Logger } from '../../core/index.ts';
import type { ApprovalStore } from '../index.ts';
import type { EngineObserver, TickOutcome } from './metrics.ts';

/** How often a waiting run looks at the database for what other processes did. */
const WAIT_POLL_MS = 250;
const MEMORY_SUMMARY_CHARS = 2000;

export interface ExecutionDeps {
  store: EngineStore;
  approvals: ApprovalStore;
  signals: Signals;
  /** Lines of this run (they carry its runId). */
  log: Logger;
  observer: EngineObserver;
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
  private readonly gate: ApprovalGate;

  constructor(
    private readonly deps: ExecutionDeps,
    readonly runId: string,
  ) {
    this.gate = new ApprovalGate({
      deps,
      signal: () => this.tick.signal,
      stopped: () => this.stopped,
      ended: (run) => this.ended(run),
      abortTick: () => this.tick.abort(),
    });
  }

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
        await this.gate.reviewPlan(run, state);
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
    const started = performance.now();
    let outcome: TickOutcome = 'aborted';
    try {
      outcome = await this.play(run, agent, tickIndex, { modelName, model, context, conversation, state }, signal);
    } finally {
      // A tick that threw (the database went away mid-tick) counts as aborted: it runs again.
      this.deps.observer.tickEnded(outcome, (performance.now() - started) / 1000);
    }
  }

  /** Plays a started tick: the model's turn and its actions, then tick.completed (or the run's end). */
  private async play(
    run: EngineRun,
    agent: AgentRecord,
    tickIndex: number,
    { modelName, model, context, conversation, state }: { modelName: string; model: ModelProvider; context: ReturnType<typeof assembleContext>; conversation: ConversationEntry[]; state: RunState },
    signal: AbortSignal,
  ): Promise<TickOutcome> {
    const { store } = this.deps;
    let turn;
    try {
      const tools = await this.deps.tools.list(agent);
      const reasoningEffort = typeof agent.config.reasoningEffort === 'string' ? agent.config.reasoningEffort : undefined;
      turn = await model.turn({ run, tickIndex, model: modelName, ...(reasoningEffort ? { reasoningEffort } : {}), context, conversation, tools, signal });
    } catch (error) {
      if (signal.aborted) return 'aborted'; // cancelled or stopping: the loop finds out which
      const message = error instanceof ModelError ? error.message : 'The model failed';
      if (!(error instanceof ModelError)) this.deps.log.error('model failed', error);
      await store.move(run.id, ['running', 'waiting_approval'], 'failed', [{ type: 'run.failed', actor: 'system', tickIndex, data: { stopReason: 'model_error', error: message } }], { stopReason: 'model_error', error: message });
      this.ended(run);
      return 'failed';
    }

    const added: ConversationEntry[] = [];
    let outcome: { kind: 'finish'; value: unknown } | { kind: 'fail'; message: string } | null = null;
    let waitingChildren: number | undefined;
    let toolCalls = 0;
    const emit = (events: NewEvent[]) => store.write(run.id, events.map((e) => ({ ...e, tickIndex })));
    for (const action of turn.actions) {
      if (signal.aborted) return 'aborted';
      const result = await this.act(run, agent, tickIndex, action, context, emit, signal);
      if (signal.aborted) return 'aborted';
      added.push(...result.added);
      toolCalls += result.toolCalls;
      if (result.spawned) waitingChildren = tickIndex;
      if (action.kind === 'finish') outcome = { kind: 'finish', value: action.value };
      if (action.kind === 'fail') outcome = { kind: 'fail', message: action.message };
    }
    if (signal.aborted) return 'aborted';
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
    if (outcome?.kind === 'finish') {
      await this.finish(run, agent, outcome.value, tickEnd, counted);
      return 'completed';
    }
    if (outcome?.kind === 'fail') {
      await store.move(run.id, ['running', 'waiting_approval'], 'failed', [...tickEnd, { type: 'run.failed', actor: 'system', data: { stopReason: 'model_error', error: outcome.message } }], { ...counted, stopReason: 'model_error', error: outcome.message });
      this.ended(run);
      return 'failed'; // the model said the run fails: a failed tick, as when the model errs
    }
    await store.write(run.id, tickEnd, counted);
    return 'completed';
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
          const approve = (ask: Parameters<ToolCallRequest['approve']>[0]) => this.gate.approveToolCall(run, tickIndex, ask);
          const started = performance.now();
          const outcome = await this.deps.tools.call({ run, agent, tickIndex, callIndex, call, signal, emit, approve });
          this.deps.observer.toolCallEnded(outcome.ok ? 'ok' : 'failed', (performance.now() - started) / 1000);
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
