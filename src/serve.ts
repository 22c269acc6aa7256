// Binds the control plane to its port and handles shutdown signals.
import type { Platform } from './platform.ts';
import type { Listener } from './core/http/index.ts';
import type { Logger } from './core/index.ts';

/**
 * Hands the bound port (listener.ts) to the control plane, whose 4 MiB body limit is its own.
 * `before` runs first on shutdown (npm start stops the runtime and executor before the database).
 */
export async function serveControlPlane(listener: Listener, platform: Platform, log: Logger, before: () => Promise<void> = async () => {}) {
  const { server } = listener;
  let stopping = false;
  const stop = async () => {
    // A second signal while draining changes nothing: the drain finishes what was accepted.
    if (stopping) return log.info('already shutting down: finishing accepted requests');
    stopping = true;
    log.info('shutting down');
    // Live event streams end first: a drain waits for every open request. Their clients resume
    // with Last-Event-ID elsewhere, with no gap.
    platform.streams.close();
    // Both origins stop accepting at once; the database closes only after both have drained.
    await Promise.all([server.stop(false), before()]);
    await platform.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  // Only now, with the signal handlers in place (without them a SIGTERM sent on seeing the line
  // below would kill the process outright instead of draining it).
  listener.handle((request, server) => {
    // A live event stream may carry nothing but its 15 s heartbeat: the server's idle timeout
    // (Bun's default, 10 s) must not cut it.
    if (request.url.includes('/events/stream')) server.timeout(request, 0);
    return platform.handle(routable(request));
  });
  if (platform.boot.generatedAdminKey) {
    process.stdout.write(`\nBootstrap INSTANCE_ADMIN API key (shown once, store it now):\n  ${platform.boot.generatedAdminKey}\n\n`);
  }
  log.info(`control plane listening on ${server.url.origin}`, { base: platform.config.BASE_URL });
  return server;
}

/**
 * Elysia looks for the path from index 11 of the URL on (`http://` and a host of 4 or more
 * characters): a shorter Host header (`api`, a typical service name) would put every request on
 * the wrong path. Such a request is handed on under `localhost`; its headers are unchanged.
 */
export function routable(request: Request): Request {
  const url = request.url;
  const scheme = url.indexOf('://');
  const slash = scheme === -1 ? -1 : url.indexOf('/', scheme + 3);
  if (slash === -1 || slash >= 11) return request;
  try {
    return new Request(`http://localhost${url.slice(slash)}`, request);
  } catch {
    // A method fetch forbids in a new Request (TRACE, TRACK, CONNECT: Deno enforces it, Bun does
    // not): handed on as it came, it is still answered (405 or 404 problem+json), never a bare 500.
    return request;
  }
}
