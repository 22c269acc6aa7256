// Starts the control plane alone (scale-out); `npm start` runs both origins via ./start.ts.
import { executorOptions, loadConfig, withBoundPorts } from './config.ts';
import { failStart } from './lib/start-failure.ts';
import { listen } from './http/listener.ts';
import { createLogger } from './lib/log.ts';
import { installProcessGuards } from './lib/process-guards.ts';
import { createPlatform } from './platform.ts';
import { serveControlPlane } from './serve.ts';
import { scaleOutWarnings } from './scale-out.ts';
import { createExecutor, type Executor } from '../runtime/executor/index.ts';

/** Undone if the start fails after it (hosts stopped, their private copy of Bun removed). */
let startedExecutor: Executor | undefined;
try {
  const declared = loadConfig();
  const log = createLogger(declared.LOG_LEVEL, 'control-plane');
  installProcessGuards(log);
  // Bound first: with PORT=0 the derived origin names the port really bound.
  const control = listen(declared.PORT);
  const config = withBoundPorts(declared, process.env, { control: control.port });
  for (const warning of scaleOutWarnings('control-plane', config, process.env)) log.warn(warning);
  // The control plane's own executor only verifies node deployments; invocations run in runtimes.
  const executor = await createExecutor(executorOptions(config, (line) => log.info(line), 1));
  startedExecutor = executor;
  const platform = await createPlatform(config, log, { executor });
  await serveControlPlane(control, platform, log, () => executor.close());
} catch (error) {
  await failStart(error, startedExecutor && (() => startedExecutor!.close()));
}
