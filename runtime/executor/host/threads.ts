// The Worker a host starts for a revision. On Bun: with an empty environment (component code sees
// no server or host variable). On Deno: with Deno's permissions denying everything (no env, read,
// write, net, run, ffi, sys, import of anything remote), and with the 'close' event the host
// relies on, which Deno's Worker does not have: sent once the Worker is terminated, or has died of
// an error it did not handle (Deno ends such a Worker and would pass the error on to the host).

const IN_DENO = 'Deno' in globalThis;

/** What this host's component Workers run on and may do, as startComponentWorker starts them (reported in the hello). */
export const WORKERS = IN_DENO
  ? ({ runtime: 'deno', permissions: 'none' } as const)
  : // Bun has no permission model: the sandbox around the host is what confines them.
    ({ runtime: 'bun', permissions: 'unrestricted' } as const);

export function startComponentWorker(url: string): Worker {
  if (!IN_DENO) return new Worker(url, { env: {} });
  const worker = new Worker(url, { type: 'module', deno: { permissions: 'none' } } as WorkerOptions);
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    queueMicrotask(() => worker.dispatchEvent(new Event('close')));
  };
  worker.addEventListener('error', (event) => {
    event.preventDefault();
    close();
  });
  const terminate = worker.terminate.bind(worker);
  worker.terminate = () => {
    terminate();
    close();
  };
  return worker;
}
