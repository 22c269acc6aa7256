// `npm start`: both origins in one process on the embedded default (DESIGN §1).
import { loadConfig, ConfigError } from './config.ts';
import { createLogger } from './lib/log.ts';
import { createPlatform } from './platform.ts';
import { serveControlPlane } from './serve.ts';
import { createRuntimeShell } from '../runtime/shell.ts';

try {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL, 'platform');
  const platform = await createPlatform(config, log);
  const runtime = Bun.serve({
    port: config.RUNTIME_PORT,
    hostname: '0.0.0.0',
    fetch: createRuntimeShell(async () => {
      const database = await platform.db.ping();
      return { ready: database, checks: { database } };
    }),
  });
  log.info(`endpoint runtime listening on ${runtime.url.origin}`, { runtimeUrl: config.ENDPOINT_RUNTIME_URL });
  await serveControlPlane(platform, log);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
