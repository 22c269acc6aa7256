// Assembles an Executor from a way to launch hosts (sandboxed processes or in-process cores):
// dispatcher, pool, idle eviction, status and an orderly close.
import type { HostHello } from '../host/self-report.ts';
import { DEFAULT_WORKER_IDLE_MS, VERIFY_TIMEOUT_MS } from '../limits.ts';
import type { CodeRevision, ExecutionOutcome, ExecutionRequest, Executor, ExecutorStatus, SandboxLayers, VerifyOutcome } from '../types.ts';
import { failure } from './decode.ts';
import { Dispatcher } from './dispatcher.ts';
import { HostPool, type Launch } from './pool.ts';

export interface AssembleOptions {
  isolation: 'process' | 'worker';
  hosts: number;
  maxWorkersPerHost: number;
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
    maxWorkersPerHost: options.maxWorkersPerHost,
    verifyTimeoutMs: options.verifyTimeoutMs ?? VERIFY_TIMEOUT_MS,
    unavailable: () => pool?.unavailable() ?? null,
    log: options.log,
  });
  pool = new HostPool(options.hosts, options.launch, dispatcher, options.log);
  try {
    await pool.warm();
  } catch (err) {
    await pool.close();
    options.cleanup?.();
    throw err;
  }

  const sweep = setInterval(() => dispatcher.evictIdle(performance.now(), idleMs), Math.max(50, Math.min(5000, idleMs / 2)));
  sweep.unref();

  let closed = false;
  let lastLayers = options.layers([...pool.hellos.values()]);

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
      return { isolation: options.isolation, layers: { ...lastLayers }, hostsReady: dispatcher.readyHosts, hostsTotal: pool.size };
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
