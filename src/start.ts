// `npm start`: both origins in one process on the embedded default (DESIGN §1). The runtime is
// told of index changes in-process, and api.platform calls reach the control plane in-process.
import { executorOptions, loadConfig, withBoundPorts, ConfigError } from './config.ts';
import { listen } from './http/listener.ts';
import { createLogger } from './lib/log.ts';
import { installProcessGuards } from './lib/process-guards.ts';
import { createPlatform } from './platform.ts';
import { serveControlPlane } from './serve.ts';
import { createExecutor } from '../runtime/executor/index.ts';
import { createRuntime } from '../runtime/create.ts';
import { serveRuntime } from '../runtime/serve.ts';

try {
  const declared = loadConfig();
  const log = createLogger(declared.LOG_LEVEL, 'platform');
  installProcessGuards(log);
  // Bound first: with PORT=0 the derived origins name the ports really bound.
  const control = listen(declared.PORT);
  const edge = listen(declared.RUNTIME_PORT);
  const config = withBoundPorts(declared, process.env, { control: control.port, runtime: edge.port });
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
  // The control plane's signal handlers first: they drain the runtime too, and must be in place
  // before either origin says it is listening. Both origins are served in the same turn.
  let served: ReturnType<typeof serveRuntime> | undefined;
  await serveControlPlane(control, platform, log, () => served?.drain() ?? Promise.resolve());
  served = serveRuntime(edge, runtime, config, log, { handleSignals: false, closeRest: () => executor.close() });
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
