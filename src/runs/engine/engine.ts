// The run engine of one control-plane process (DESIGN §5): every process runs one, and they share
// the work through the database. A scheduling pass cancels the runs of DISABLED agents, takes over
// runs whose lease lapsed, and starts queued runs where their agent has room; each run it holds
// executes as a RunExecution. Leases are renewed every third of RUN_LEASE_MS, and the statuses of
// the runs executed here are watched so that a cancellation made on another process aborts the
// tick in flight within a second.
import type { Logger } from '../../core/index.ts';
import type { Database } from '../../core/db/index.ts';
import type { AgentRecord } from '../../agents/index.ts';
import type { RunStore } from '../index.ts';
import { EngineStore, LeaseLost, type EngineRun } from './store.ts';
import type { ToolCallLedger } from './ledger.ts';
import { ApprovalStore } from '../index.ts';
import { RunExecution } from './execution.ts';
import { noTools, type ToolHost } from './tool-host.ts';
import { Signals, yieldToEventLoop } from './signals.ts';
import { ModelError, type ModelProvider } from '../models/index.ts';
import { scriptedModel } from '../models/index.ts';
import { unobserved, type EngineObserver } from './metrics.ts';

/** A scheduling pass at least this often (the only way to see other processes' new runs). */
const SCAN_MS = 250;
const WATCH_MS = 500;
/** Runs one process executes at once at most; the rest wait for another process or a later pass. */
const MAX_EXECUTING = 256;
const BATCH = 256;

export interface EngineOptions {
  db: Database;
  runs: RunStore;
  log: Logger;
  leaseMs: number;
  enabledModels: readonly string[];
  /** The tools of runs, given this engine's tool-call ledger; none: every call fails UNKNOWN_TOOL. */
  tools?: (ledger: ToolCallLedger) => ToolHost;
  /** The provider of an enabled model other than `scripted`. */
  models?: (name: string) => ModelProvider | undefined;
  /** Ticks and tool calls as they end (the process's metrics). */
  observer?: EngineObserver;
}

export class RunEngine {
  readonly signals = new Signals();
  private readonly store: EngineStore;
  private readonly approvals: ApprovalStore;
  private readonly tools: ToolHost;
  private readonly executing = new Map<string, RunExecution>();
  private readonly settled = new Set<Promise<void>>();
  private timers: ReturnType<typeof setInterval>[] = [];
  private scanning: Promise<void> | null = null;
  private rescan = false;
  private closed = false;

  constructor(private readonly options: EngineOptions) {
    this.store = new EngineStore(options.db, options.runs, `engine-${crypto.randomUUID()}`, options.leaseMs);
    this.approvals = new ApprovalStore(options.db);
    this.tools = options.tools?.(this.store.ledger()) ?? noTools;
  }

  start(): void {
    this.timers = [
      setInterval(() => this.wake(), SCAN_MS),
      setInterval(() => void this.renew(), Math.max(100, Math.floor(this.options.leaseMs / 3))),
      setInterval(() => void this.watch(), WATCH_MS),
    ];
    this.wake();
  }

  /** Asks for a scheduling pass soon (a run was created or ended, an agent changed). */
  wake(): void {
    if (this.closed) return;
    if (this.scanning) {
      this.rescan = true;
      return;
    }
    // Outside the request that may have woken it: the scheduler's lines, and the runs it starts,
    // belong to no request.
    this.scanning = this.options.log
      .outside(() => this.scan())
      .catch((error: unknown) => this.options.log.error('run scheduling failed', error))
      .finally(() => {
        this.scanning = null;
        if (this.rescan) {
          this.rescan = false;
          this.wake();
        }
      });
  }

  /** An approval of a run was resolved here: the run waiting for it looks at once. */
  resolved(runId: string): void {
    this.signals.notify(runId);
  }

  /** A run was cancelled here: abort its tick at once if this process executes it, else wake its waiters. */
  cancelled(runId: string): void {
    this.executing.get(runId)?.interrupt();
    this.signals.notify(runId);
    this.wake();
  }

  private async scan(): Promise<void> {
    for (const id of await this.store.ofDisabledAgents(BATCH)) {
      const moved = await this.store.stopOther(id, 'agent_disabled', 'system');
      if (moved === 'cancelling') this.cancelled(id);
    }
    if (this.executing.size < MAX_EXECUTING) {
      for (const { run, takenOver } of await this.store.takeOverLapsed(Math.min(BATCH, MAX_EXECUTING - this.executing.size))) {
        this.launch(run, takenOver);
      }
    }
    if (this.executing.size >= MAX_EXECUTING) return;
    for (const candidate of await this.store.queued(BATCH)) {
      if (this.closed || this.executing.size >= MAX_EXECUTING) return;
      const run = await this.store.tryStart(candidate, startedData);
      if (run) this.launch(run, false);
      await yieldToEventLoop();
    }
  }

  private launch(run: EngineRun, takenOver: boolean): void {
    if (this.closed || this.executing.has(run.id)) return;
    const execution = new RunExecution(
      {
        store: this.store,
        approvals: this.approvals,
        signals: this.signals,
        log: this.options.log.child({ runId: run.id }),
        observer: this.options.observer ?? unobserved,
        model: (agent) => this.modelOf(agent),
        tools: this.tools,
        wake: () => this.wake(),
      },
      run.id,
    );
    this.executing.set(run.id, execution);
    const done = execution
      .execute(takenOver)
      .catch(async (error) => {
        if (error instanceof LeaseLost) return;
        if (this.closed) return;
        // An unexpected failure (the database went away mid-run): give the run back, so that a
        // later pass (here or elsewhere) takes it over from its last completed tick.
        this.options.log.error('run execution failed; its lease is released', { runId: run.id, error: String(error) });
        await this.store.lapse([run.id]).catch(() => {});
      })
      .finally(() => {
        this.executing.delete(run.id);
        this.settled.delete(done);
        this.wake();
      });
    this.settled.add(done);
  }

  /** The agent's model; one without a provider (no longer enabled, say) fails the run's next tick with model_error. */
  private modelOf(agent: AgentRecord): { name: string; provider: ModelProvider } {
    const name = typeof agent.config.model === 'string' ? agent.config.model : this.options.enabledModels[0]!;
    if (name === 'scripted') return { name, provider: scriptedModel };
    const provider = this.options.models?.(name);
    if (provider) return { name, provider };
    const why = this.options.enabledModels.includes(name) ? 'has no provider on this instance' : 'is not enabled on this instance (ENABLED_MODELS)';
    return { name, provider: unavailableModel(`The model ${JSON.stringify(name)} ${why}`) };
  }

  private async renew(): Promise<void> {
    try {
      for (const id of await this.store.renew([...this.executing.keys()])) {
        this.options.log.warn('run lease lost; another process executes the run', { runId: id });
        this.executing.get(id)?.stop();
      }
    } catch (error) {
      this.options.log.warn('run lease renewal failed', { error: String(error) });
    }
  }

  private async watch(): Promise<void> {
    try {
      for (const [id, status] of await this.store.statuses([...this.executing.keys()])) {
        if (status === 'cancelling') this.executing.get(id)?.interrupt();
      }
    } catch {
      // The next pass looks again.
    }
  }

  /**
   * Stops executing: ticks in flight are aborted and the runs' leases lapse at once, so that the
   * next process to scan takes them over and runs each interrupted tick again.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    await this.scanning;
    const ids = [...this.executing.keys()];
    for (const execution of this.executing.values()) execution.stop();
    await Promise.race([Promise.allSettled([...this.settled]), new Promise((r) => setTimeout(r, 2000))]);
    await this.store.lapse(ids).catch(() => {});
  }
}

/** Stands for a model that cannot be called: its turn fails, so the run fails with model_error and says why. */
function unavailableModel(message: string): ModelProvider {
  return {
    finished: () => false,
    turn: async () => {
      throw new ModelError(message);
    },
  };
}

/** What run.started records of the agent's descriptive configuration (DESIGN §5 Details). */
function startedData(agent: { config: unknown }): Record<string, unknown> {
  const config = agent.config as Record<string, unknown>;
  const automation = config.automation as Record<string, unknown> | undefined;
  const data: Record<string, unknown> = {};
  if (typeof config.model === 'string') data.model = config.model;
  if (config.release !== undefined) data.release = config.release;
  if (automation?.notificationPolicy !== undefined) data.notificationPolicy = automation.notificationPolicy;
  if (config.toolNames !== undefined) data.toolNames = config.toolNames;
  if (config.pluginIds !== undefined) data.pluginIds = config.pluginIds;
  return data;
}
