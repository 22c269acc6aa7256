// Binds the control plane to its port and handles shutdown signals.
import type { Platform } from './platform.ts';
import { SERVER_BODY_CAP } from './http/body.ts';
import type { Logger } from './lib/log.ts';

/** `before` runs first on shutdown (npm start stops the runtime and executor before the database). */
export async function serveControlPlane(platform: Platform, log: Logger, before: () => Promise<void> = async () => {}) {
  const server = Bun.serve({
    port: platform.config.PORT,
    hostname: '0.0.0.0',
    // The 4 MiB limit is ours to enforce (413 problem+json with x-svc-oid), not Bun's.
    maxRequestBodySize: SERVER_BODY_CAP,
    fetch: (request) => platform.app.handle(request),
  });
  if (platform.boot.generatedAdminKey) {
    process.stdout.write(`\nBootstrap INSTANCE_ADMIN API key (shown once, store it now):\n  ${platform.boot.generatedAdminKey}\n\n`);
  }
  log.info(`control plane listening on ${server.url.origin}`, { base: platform.config.BASE_URL });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down');
    await server.stop(false);
    await before();
    await platform.close();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return server;
}
