// `npm start`: both origins in one process on the embedded default (DESIGN §1). The runtime is
// told of index changes in-process, and api.platform calls reach the control plane in-process.
import { executorOptions, loadConfig, withBoundPorts } from './config.ts';
import { failStart } from './lib/start-failure.ts';
import { listen } from './http/listener.ts';
import { createLogger } from './lib/log.ts';
import { installProcessGuards } from './lib/process-guards.ts';
import { createPlatform } from './platform.ts';
import { serveControlPlane } from './serve.ts';
import { createExecutor, type Executor } from '../runtime/executor/index.ts';
import { createRuntime } from '../runtime/create.ts';
import { serveRuntime } from '../runtime/serve.ts';

/** Undone if the start fails after it (hosts stopped, their private copy of Bun removed). */
let startedExecutor: Executor | undefined;
try {
  const declared = loadConfig();
  const log = createLogger(declared.LOG_LEVEL, 'platform');
  installProcessGuards(log);
  // Bound first: with PORT=0 the derived origins name the ports really bound.
  const control = listen(declared.PORT);
  const edge = listen(declared.RUNTIME_PORT);
  const config = withBoundPorts(declared, process.env, { control: control.port, runtime: edge.port });
  const executor = await createExecutor(executorOptions(config, (line) => log.info(line)));
  startedExecutor = executor;
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
  await failStart(error, startedExecutor && (() => startedExecutor!.close()));
}
