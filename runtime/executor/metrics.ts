// The executor's metrics (DESIGN §12), read from its status at scrape time: hosts warm (taking work,
// idle), busy and replaced since the start (also as a counter), and component Workers.
import type { OriginMetrics } from '../../src/core/metrics/index.ts';
import type { Executor } from './contract/index.ts';

/** Adds the executor's gauges to the metrics of the origin that runs its components. */
export function executorMetrics(metrics: OriginMetrics, executor: Pick<Executor, 'status'>): void {
  metrics.gauge('executor_hosts', 'Executor hosts by state: warm (taking work, idle), busy (invocations in flight), replaced (stopped without being asked to since the start, each replaced)', ['state'], () => {
    const s = executor.status();
    return [
      [{ state: 'warm' }, s.hostsReady - s.hostsBusy],
      [{ state: 'busy' }, s.hostsBusy],
      [{ state: 'replaced' }, s.hostsReplaced],
    ];
  });
  metrics.gauge('executor_workers', 'Component Workers running in the executor hosts', [], () => [[{}, executor.status().workersRunning]]);
  metrics.total('executor_hosts_replaced_total', 'Executor hosts that stopped without being asked to (crashed, killed past a deadline) and were replaced', () => executor.status().hostsReplaced);
}
