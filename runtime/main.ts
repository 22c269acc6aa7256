// Starts the endpoint runtime alone (scale-out); `npm start` runs both origins via src/start.ts.
import { loadConfig, ConfigError } from '../src/config.ts';
import { createLogger } from '../src/lib/log.ts';
import { openDatabase } from '../src/db/index.ts';
import { createRuntimeShell } from './shell.ts';

try {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL, 'runtime');
  const db = await openDatabase(config.DATABASE_URL);
  const server = Bun.serve({
    port: config.RUNTIME_PORT,
    hostname: '0.0.0.0',
    fetch: createRuntimeShell(async () => {
      const database = await db.ping();
      return { ready: database, checks: { database } };
    }),
  });
  log.info(`endpoint runtime listening on ${server.url.origin}`);
  const stop = async () => {
    await server.stop();
    await db.close();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
