// Starts the control plane alone (scale-out); `npm start` runs both origins via ./start.ts.
import { loadConfig, ConfigError } from './config.ts';
import { createLogger } from './lib/log.ts';
import { createPlatform } from './platform.ts';
import { serveControlPlane } from './serve.ts';

try {
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL, 'control-plane');
  const platform = await createPlatform(config, log);
  await serveControlPlane(platform, log);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
