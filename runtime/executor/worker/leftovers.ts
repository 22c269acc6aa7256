// Work an invocation leaves behind must not outlive it: timers and nested Workers started while
// invocations run are stopped once none runs any more (the Worker is idle). Without this a
// component could return at once and leave a loop spinning on a later invocation's clock, or a
// nested Worker burning a core until the revision's Worker is unloaded. Timers and Workers a
// module starts while it loads (before any invocation runs its code) are the module's own state
// and are left alone.

type TimerHandle = ReturnType<typeof setTimeout>;

export interface LeftoverGuard {
  /** Stops what invocations left behind; call when no invocation runs. */
  sweep(): void;
}

export function installLeftoverGuard(invocationRunning: () => boolean): LeftoverGuard {
  const realSetTimeout = globalThis.setTimeout;
  const realSetInterval = globalThis.setInterval;
  const realClearTimeout = globalThis.clearTimeout;
  const realClearInterval = globalThis.clearInterval;
  const RealWorker = globalThis.Worker;
  const timers = new Set<TimerHandle>();
  const workers = new Set<Worker>();

  globalThis.setTimeout = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    if (!invocationRunning()) return realSetTimeout(fn, ms, ...args);
    const handle: TimerHandle = realSetTimeout((...a: unknown[]) => {
      timers.delete(handle);
      fn(...a);
    }, ms, ...args);
    timers.add(handle);
    return handle;
  }) as typeof setTimeout;
  globalThis.setInterval = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const handle = realSetInterval(fn, ms, ...args);
    if (invocationRunning()) timers.add(handle);
    return handle;
  }) as typeof setInterval;
  globalThis.clearTimeout = ((handle?: TimerHandle) => {
    if (handle !== undefined) timers.delete(handle);
    realClearTimeout(handle);
  }) as typeof clearTimeout;
  globalThis.clearInterval = ((handle?: TimerHandle) => {
    if (handle !== undefined) timers.delete(handle);
    realClearInterval(handle);
  }) as typeof clearInterval;

  if (typeof RealWorker === 'function') {
    globalThis.Worker = class TrackedWorker extends RealWorker {
      constructor(...args: ConstructorParameters<typeof Worker>) {
        super(...args);
        if (!invocationRunning()) return;
        workers.add(this);
        this.addEventListener('close', () => workers.delete(this));
      }
    } as typeof Worker;
  }

  return {
    sweep() {
      for (const handle of timers) realClearTimeout(handle);
      timers.clear();
      for (const worker of workers) worker.terminate();
      workers.clear();
    },
  };
}
