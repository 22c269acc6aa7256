// Binds the runtime to its port. drain(): stop accepting, let in-flight invocations finish (each is
// bounded by its deadline), flush audit and statistics, then `closeRest` (executor, database).
import type { Config, Logger } from '../src/core/index.ts';
import type { Runtime } from './create.ts';
import type { Listener } from '../src/core/http/index.ts';

/** Hands the bound port (src/core/http/listener.ts) to the runtime, whose 1 MiB body limit is its own. */
export function serveRuntime(listener: Listener, runtime: Runtime, config: Config, log: Logger, options: { closeRest?: () => Promise<void>; handleSignals: boolean }) {
  const { server } = listener;
  let draining: Promise<void> | null = null;
  const drain = () => {
    draining ??= (async () => {
      log.info('runtime draining: no new requests, finishing in-flight invocations');
      await server.stop(false);
      await runtime.close();
      await options.closeRest?.();
    })();
    return draining;
  };
  if (options.handleSignals) {
    // Every signal is handled (a second one while draining changes nothing): with `once`, a repeated
    // SIGTERM would take the default action and cut off the invocations being finished.
    const onSignal = () => {
      if (draining) return log.info('already draining: finishing accepted invocations');
      void drain().then(() => process.exit(0));
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
  // Only now, with the signal handlers in place: a SIGTERM sent on seeing this line is a drain.
  listener.handle(runtime.fetch);
  log.info(`endpoint runtime listening on ${server.url.origin}`, { runtimeUrl: config.ENDPOINT_RUNTIME_URL });
  return { server, drain };
}
