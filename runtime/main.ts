// Starts the endpoint runtime alone (scale-out); `npm start` runs both origins via src/start.ts.
import { executorOptions, loadConfig, withBoundPorts } from '../src/config.ts';
import { failStart } from '../src/lib/start-failure.ts';
import { listen } from '../src/http/listener.ts';
import { createLogger } from '../src/lib/log.ts';
import { installProcessGuards } from '../src/lib/process-guards.ts';
import { openDatabase } from '../src/db/index.ts';
import { PrincipalStore } from '../src/auth/principals.ts';
import { CredentialResolver } from '../src/auth/credentials.ts';
import { createJwtService } from '../src/auth/jwt.ts';
import { jwtSecret } from '../src/bootstrap.ts';
import { createExecutor, type Executor } from './executor/index.ts';
import { createRuntime } from './create.ts';
import { serveRuntime } from './serve.ts';
import { scaleOutWarnings } from '../src/scale-out.ts';

/** Undone if the start fails after it (hosts stopped, their private copy of Bun removed). */
let startedExecutor: Executor | undefined;
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
  startedExecutor = executor;
  const runtime = await createRuntime({ config, db, credentials, jwt, executor, log });
  serveRuntime(edge, runtime, config, log, {
    handleSignals: true,
    closeRest: async () => {
      await Promise.all([executor.close(), credentials.close()]);
      await db.close();
    },
  });
} catch (error) {
  await failStart(error, startedExecutor && (() => startedExecutor!.close()));
}
