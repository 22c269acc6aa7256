// A Worker past its deadline is told to stop ('K' with a random token); the host acknowledges
// ('k') once the Worker is gone and every invocation it held is reported. A host that does not
// within WORKER_STOP_GRACE_MS is killed: its Worker will not stop.
import { WORKER_STOP_GRACE_MS } from '../contract/index.ts';
import { line } from '../wire/index.ts';
import type { HostEntry, Loaded } from './placement.ts';
import { newSecret } from './secrets.ts';

/** Tells the host to stop the Worker of revision `key` (`loaded`) and watches for its acknowledgement. */
export function watchKill(host: HostEntry, key: number, loaded: Loaded, log: (line: string) => void): void {
  // Random, not counted: component code can write an acknowledgement ('k') to its host's channel,
  // and one it could guess would spare a host whose Worker will not stop.
  const token = newSecret()[0] || 1;
  loaded.killToken = token;
  host.killWatch.set(
    token,
    setTimeout(() => {
      log(`executor: ${host.link.name} killed: a Worker did not stop within ${WORKER_STOP_GRACE_MS} ms of its deadline`);
      host.link.kill('a Worker did not stop after its deadline');
    }, WORKER_STOP_GRACE_MS),
  );
  host.link.send(line('K', [key, token]));
}

/** The revisions whose Worker the acknowledged kill stopped; null when the token is none the server is waiting for. */
export function acknowledgeKill(host: HostEntry, token: number): Set<Loaded> | null {
  const timer = host.killWatch.get(token);
  if (timer === undefined) return null;
  clearTimeout(timer);
  host.killWatch.delete(token);
  const killed = new Set<Loaded>();
  for (const loaded of host.loaded.values()) {
    if (loaded.killToken !== token) continue;
    loaded.killToken = 0;
    killed.add(loaded);
  }
  return killed;
}
