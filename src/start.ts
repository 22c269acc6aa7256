// `npm start`: both origins in one process on the embedded default (DESIGN §1). The runtime is
// told of index changes in-process, and api.platform calls reach the control plane in-process.
import { executorOptions, loadConfig, ConfigError } from './config.ts';
import { createLogger } from './lib/log.ts';
import { installProcessGuards } from './lib/process-guards.ts';
import { createPlatform } from './platform.ts';
import { serveControlPlane } from './serve.ts';
import { createExecutor } from '../runtime/executor/index.ts';
import { createRuntime } from '../runtime/create.ts';
import { serveRuntime } from '../runtime/serve.ts';

try {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL, 'platform');
  installProcessGuards(log);
  const executor = await createExecutor(executorOptions(config, (line) => log.info(line)));
  log.info(`component isolation: ${config.COMPONENT_ISOLATION}`, { layers: executor.status().layers });
  const platform = await createPlatform(config, log, { executor });
  const runtime = await createRuntime({
    config,
    db: platform.db,
    credentials: platform.credentials,
    jwt: platform.jwt,
    executor,
    log,
    embedded: { publisher: platform.publisher, controlPlane: (request) => platform.app.handle(request) },
  });
  // One shutdown for both: drain the runtime (and its executor) before the shared database closes.
  const served = serveRuntime(runtime, config, log, { handleSignals: false, closeRest: () => executor.close() });
  await serveControlPlane(platform, log, served.drain);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  // A start that failed (a port in use, a database that refuses) must not leave a process that
  // serves nothing: the process guards would otherwise keep it alive.
  process.stderr.write(`start failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
}
