// Assembles an Executor from a way to launch hosts (sandboxed processes or in-process cores):
// dispatcher, pool, idle eviction (and retirement of hosts left empty), status and an orderly close.
import type { HostHello } from '../host/index.ts';
import {
  DEFAULT_WORKER_IDLE_MS,
  VERIFY_TIMEOUT_MS,
  type CodeRevision,
  type ExecutionOutcome,
  type ExecutionRequest,
  type Executor,
  type ExecutorStatus,
  type SandboxLayers,
  type VerifyOutcome,
} from '../contract/index.ts';
import { failure } from './decode.ts';
import { workersOf } from './layers.ts';
import { Dispatcher } from './dispatcher.ts';
import type { PlacementLimits } from './placement.ts';
import { HostPool, type Launch, type PoolSize } from './pool.ts';

export interface AssembleOptions {
  isolation: 'process' | 'worker';
  /** Spares kept warm and hosts at most; what one host and one tenant may take. */
  pool: Omit<PoolSize, 'reclaimIdleMs'>;
  limits: PlacementLimits;
  workerIdleMs?: number;
  verifyTimeoutMs?: number;
  launch: Launch;
  layers: (hellos: HostHello[]) => SandboxLayers;
  log: (line: string) => void;
  /** Runs after the last host stopped. */
  cleanup?: () => void;
}

export async function assembleExecutor(options: AssembleOptions): Promise<Executor> {
  const idleMs = options.workerIdleMs ?? DEFAULT_WORKER_IDLE_MS;
  let pool: HostPool | undefined;
  const dispatcher = new Dispatcher({
    limits: options.limits,
    verifyTimeoutMs: options.verifyTimeoutMs ?? VERIFY_TIMEOUT_MS,
    unavailable: () => pool?.unavailable() ?? null,
    hostsChanged: () => pool?.adjust(),
    log: options.log,
  });
  // Well before idle eviction, which would stop the host anyway.
  pool = new HostPool({ ...options.pool, reclaimIdleMs: Math.min(5000, idleMs / 4) }, options.launch, dispatcher, options.log);
  try {
    await pool.warm();
  } catch (err) {
    await pool.close();
    options.cleanup?.();
    throw err;
  }

  const sweep = setInterval(() => {
    const empty = dispatcher.evictIdle(performance.now(), idleMs);
    // A host that ran a tenant's code never serves another tenant: once empty it goes, and the
    // pool keeps its spares.
    for (const host of empty) pool.retire(host, 'idle');
    // Also brings back a spare at the ceiling from a host idle there for a while.
    pool.adjust();
    pool.trimSpares();
  }, Math.max(50, Math.min(5000, idleMs / 2)));
  sweep.unref();

  let closed = false;
  let lastLayers = options.layers([...pool.hellos.values()]);
  let lastWorkers = workersOf([...pool.hellos.values()]);

  return {
    execute(request: ExecutionRequest): Promise<ExecutionOutcome> {
      if (closed) return Promise.resolve(failure(502, 'EXECUTOR_CRASHED', 'the executor is shutting down'));
      return dispatcher.execute(request);
    },
    verify(revision: CodeRevision): Promise<VerifyOutcome> {
      if (closed) return Promise.resolve({ ok: false, error: 'the executor is shutting down' });
      if (revision.kind === 'node' && typeof revision.source !== 'string') return Promise.resolve({ ok: false, error: 'source must be a string' });
      return dispatcher.verify(revision);
    },
    status(): ExecutorStatus {
      const hellos = [...pool.hellos.values()];
      if (hellos.length > 0) lastLayers = options.layers(hellos);
      if (hellos.length > 0) lastWorkers = workersOf(hellos);
      return {
        isolation: options.isolation,
        layers: { ...lastLayers },
        workers: { ...lastWorkers },
        hostsReady: dispatcher.readyHosts,
        hostsTotal: pool.total,
        hostsSpare: options.limits.bindTenants ? pool.spares : 0,
        hostsBusy: dispatcher.busyHosts,
        hostsReplaced: pool.replaced,
        workersRunning: dispatcher.workers,
      };
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      clearInterval(sweep);
      // Queued and in-flight invocations end by themselves: each has a deadline, and a Worker that ignores
      // it gets its host killed shortly after.
      await dispatcher.whenIdle();
      await pool.close();
      options.cleanup?.();
    },
  };
}
