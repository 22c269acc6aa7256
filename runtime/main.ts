// Starts the endpoint runtime alone (scale-out); `npm start` runs both origins via src/start.ts.
import { executorOptions, loadConfig, withBoundPorts, ConfigError } from '../src/config.ts';
import { listen } from '../src/http/listener.ts';
import { createLogger } from '../src/lib/log.ts';
import { installProcessGuards } from '../src/lib/process-guards.ts';
import { openDatabase } from '../src/db/index.ts';
import { PrincipalStore } from '../src/auth/principals.ts';
import { CredentialResolver } from '../src/auth/credentials.ts';
import { createJwtService } from '../src/auth/jwt.ts';
import { jwtSecret } from '../src/bootstrap.ts';
import { createExecutor } from './executor/index.ts';
import { createRuntime } from './create.ts';
import { serveRuntime } from './serve.ts';
import { scaleOutWarnings } from '../src/scale-out.ts';

try {
  const declared = loadConfig();
  const log = createLogger(declared.LOG_LEVEL, 'runtime');
  installProcessGuards(log);
  // Bound first: with RUNTIME_PORT=0 the derived origin names the port really bound.
  const edge = listen(declared.RUNTIME_PORT);
  const config = withBoundPorts(declared, process.env, { runtime: edge.port });
  for (const warning of scaleOutWarnings('runtime', config, process.env)) log.warn(warning);
  log.info(`api.platform calls go to the control plane at ${config.BASE_URL}`);
  const db = await openDatabase(config.DATABASE_URL);
  const jwt = await createJwtService({ secret: jwtSecret(config), publicKeyPem: config.JWT_PUBLIC_KEY, jwksUrl: config.JWT_JWKS_URL, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE });
  const credentials = new CredentialResolver(new PrincipalStore(db), jwt);
  const executor = await createExecutor(executorOptions(config, (line) => log.info(line)));
  const runtime = await createRuntime({ config, db, credentials, jwt, executor, log });
  serveRuntime(edge, runtime, config, log, {
    handleSignals: true,
    closeRest: async () => {
      await executor.close();
      await credentials.close();
      await db.close();
    },
  });
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
