// The executor's options as the platform's configuration sets them.
import type { Config } from '../../src/core/index.ts';
import type { ExecutorOptions } from './contract/index.ts';

/** What the executor takes from the configuration; `spares` overrides EXECUTOR_HOSTS. */
export function executorOptions(config: Config, log: (line: string) => void, spares = config.EXECUTOR_HOSTS): ExecutorOptions {
  return {
    isolation: config.COMPONENT_ISOLATION,
    hosts: spares,
    maxHosts: config.EXECUTOR_MAX_HOSTS,
    ...(config.EXECUTOR_HOSTS_PER_WORKSPACE !== undefined ? { hostsPerTenant: config.EXECUTOR_HOSTS_PER_WORKSPACE } : {}),
    memoryMb: config.EXECUTOR_MEMORY_MB,
    log,
  };
}
