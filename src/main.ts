// Starts the control plane alone (scale-out); `npm start` runs both origins via ./start.ts.
import { executorOptions, loadConfig, withBoundPorts, ConfigError } from './config.ts';
import { listen } from './http/listener.ts';
import { createLogger } from './lib/log.ts';
import { installProcessGuards } from './lib/process-guards.ts';
import { createPlatform } from './platform.ts';
import { serveControlPlane } from './serve.ts';
import { scaleOutWarnings } from './scale-out.ts';
import { createExecutor } from '../runtime/executor/index.ts';

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
  const platform = await createPlatform(config, log, { executor });
  await serveControlPlane(control, platform, log, () => executor.close());
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
