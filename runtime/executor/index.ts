// The executor: runs component code (lowcode elements or a node module) in Bun Workers, inside
// sandboxed host processes (`process`, the default) or inside the server (`worker`, trusted code
// only). This module is the only door other parts of the runtime use.
import { availableParallelism } from 'node:os';
import {
  DEFAULT_HOSTS,
  DEFAULT_MAX_HOSTS,
  DEFAULT_MEMORY_MB,
  maxWorkersPerHost,
  type Executor,
  type ExecutorOptions,
} from './contract/index.ts';
import { assembleExecutor, startInProcessHost, commonLayers, NO_LAYERS, spawnProcessHost, planSandbox } from './server/index.ts';

export type {
  CodeRevision,
  ComponentInput,
  ExecutionOutcome,
  ExecutionRequest,
  Executor,
  ExecutorOptions,
  PlatformCall,
} from './contract/index.ts';
export { RESULT_LIMIT_BYTES } from './contract/index.ts';
export { executorOptions } from './options.ts';
export { missingLayers, LAYER_FIXES } from './layers-missing.ts';
export { executorMetrics } from './metrics.ts';

/** Starts the executor with its hosts warm; rejects if no host can be started at all. */
export async function createExecutor(options: ExecutorOptions): Promise<Executor> {
  const log = options.log ?? ((line: string) => console.error(line));
  const memoryMb = options.memoryMb ?? DEFAULT_MEMORY_MB;

  if (options.isolation === 'worker') {
    log('executor: isolation=worker runs component code in Workers inside the server process; this is unsafe for untrusted code');
    return assembleExecutor({
      isolation: 'worker',
      pool: { spares: 1, max: 1 },
      limits: { maxWorkersPerHost: 64, maxHostsPerTenant: 1, bindTenants: false },
      workerIdleMs: options.workerIdleMs,
      verifyTimeoutMs: options.verifyTimeoutMs,
      launch: async (name, events) => startInProcessHost(name, events, log),
      layers: () => ({ ...NO_LAYERS }),
      log,
    });
  }

  const plan = planSandbox({ memoryMb, privateCopy: options.privateCopy ?? false, syscallFilter: options.syscallFilter ?? true });
  for (const missing of plan.missing) log(`executor: sandbox layer unavailable: ${missing}`);
  const spares = Math.max(1, options.hosts ?? DEFAULT_HOSTS);
  const max = Math.max(spares, options.maxHosts ?? DEFAULT_MAX_HOSTS);
  if (options.maxHosts !== undefined && options.maxHosts < spares) log(`executor: at most ${options.maxHosts} hosts asked for, but ${spares} spares: up to ${max} hosts`);
  const executor = await assembleExecutor({
    isolation: 'process',
    pool: { spares, max },
    limits: {
      maxWorkersPerHost: maxWorkersPerHost(memoryMb),
      maxHostsPerTenant: Math.max(1, Math.min(max - 1 || 1, options.hostsPerTenant ?? availableParallelism())),
      bindTenants: true,
    },
    workerIdleMs: options.workerIdleMs,
    verifyTimeoutMs: options.verifyTimeoutMs,
    launch: (name, events) => spawnProcessHost(plan.argv, name, events, log),
    layers: (hellos) => commonLayers(hellos, plan.masked),
    log,
    cleanup: plan.cleanup,
  });
  const { layers, hostsReady } = executor.status();
  const inForce = Object.entries(layers).map(([k, v]) => `${k}=${v ? 'yes' : 'NO'}`).join(' ');
  log(`executor: isolation=process, ${hostsReady} hosts ready (up to ${max}, one tenant's code per host), layers: ${inForce}`);
  return executor;
}
