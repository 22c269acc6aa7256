// Worker isolation: the host core runs inside the server process and its Workers are threads of
// the server. Only for trusted code: nothing but the Worker boundary separates components from
// the server, and a Worker that ignores terminate() (a WebAssembly loop) cannot be reclaimed.
import { HostCore, selfReport } from '../host/index.ts';
import type { HostEvents, HostExit, HostLink } from './host-link.ts';

export function startInProcessHost(name: string, events: HostEvents, log: (line: string) => void): HostLink {
  let gone = false;
  let pending: string[] = [];
  // Delivered on a microtask so the dispatcher never sees a reply from inside its own send().
  const deliver = (): void => {
    const batch = pending.join('\n');
    pending = [];
    if (!gone) events.onLines(batch);
  };
  const core = new HostCore(
    (lines) => {
      if (pending.push(lines) === 1) queueMicrotask(deliver);
    },
    () => {},
  );
  const finish = (exit: HostExit): void => {
    if (gone) return;
    gone = true;
    core.stop();
    queueMicrotask(() => events.onExit(exit));
  };
  return {
    name,
    hello: selfReport(),
    send: (text) => {
      if (!gone) core.receive(text);
    },
    kill: (reason) => {
      log(`executor: ${name} abandoned (${reason}); in worker isolation a Worker that ignores terminate() keeps its thread`);
      finish({ reason, outOfMemory: false });
    },
    stop: async () => finish({ reason: 'stopped', outOfMemory: false }),
  };
}
