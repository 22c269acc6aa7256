// The composition root: builds every part of a process from the validated configuration, for its
// role, and serves it. `all` is `npm start` (both origins in one process, the index announced and
// api.platform served in-process); `control-plane` and `runtime` are the scale-out processes. The
// only place that knows both origins: neither origin imports the other's parts.
import { ConfigError, loadConfig, withBoundPorts, type Config } from './core/index.ts';
import { failStart } from './lib/index.ts';
import { listen, type Listener } from './core/http/index.ts';
import { createLogger, type Logger } from './core/index.ts';
import { installProcessGuards } from './lib/index.ts';
import { openDatabase } from './core/db/index.ts';
import { PrincipalStore, CredentialResolver, createJwtService } from './core/identity/index.ts';
import { jwtSecret } from './bootstrap.ts';
import { createPlatform } from './platform.ts';
import { serveControlPlane } from './serve.ts';
import { scaleOutWarnings } from './scale-out.ts';
import { createExecutor, executorMetrics, executorOptions, missingLayers, LAYER_FIXES, type Executor } from '../runtime/executor/index.ts';
import { createRuntime } from '../runtime/index.ts';
import { serveRuntime } from '../runtime/index.ts';

export const ROLES = ['all', 'control-plane', 'runtime'] as const;
export type Role = (typeof ROLES)[number];

/** The ports a started process serves on (what PORT=0 / RUNTIME_PORT=0 became). */
export interface Started {
  control?: number;
  runtime?: number;
}

/**
 * Starts a process of `role` from `env` and serves until SIGTERM or SIGINT drains it. A start that
 * fails ends the process (exit 2 for configuration, 1 otherwise) after undoing what it had set up.
 */
export async function start(role: Role, env: Record<string, string | undefined> = process.env): Promise<Started> {
  /** Undone if the start fails after it (hosts stopped, their private copy of Bun removed). */
  let startedExecutor: Executor | undefined;
  /** Set once the configuration names the level and format: a failure after it is logged there. */
  let startLog: Logger | undefined;
  try {
    const declared = loadConfig(env);
    const log = createLogger(declared.LOG_LEVEL, role === 'all' ? 'platform' : role, { format: declared.LOG_FORMAT });
    startLog = log;
    installProcessGuards(log);
    // Bound first: with port 0 the derived origins name the ports really bound.
    const control = role === 'runtime' ? undefined : listen(declared.PORT);
    const edge = role === 'control-plane' ? undefined : listen(declared.RUNTIME_PORT);
    const config = withBoundPorts(declared, env, { ...(control ? { control: control.port } : {}), ...(edge ? { runtime: edge.port } : {}) });
    if (role !== 'all') for (const warning of scaleOutWarnings(role, config, env)) log.warn(warning);
    // A control plane alone keeps one spare host: its executor only verifies node deployments.
    const executor = await createExecutor(executorOptions(config, (line) => log.info(line), role === 'control-plane' ? 1 : config.EXECUTOR_HOSTS));
    startedExecutor = executor;
    log.info(`component isolation: ${config.COMPONENT_ISOLATION}`, { layers: executor.status().layers });
    const degraded = missingLayers(executor.status());
    if (degraded.length > 0) {
      const what = degraded.map((layer) => `${layer} (${LAYER_FIXES[layer]})`).join('; ');
      if (config.COMPONENT_ISOLATION_DEGRADED !== 'allow') {
        throw new ConfigError(
          `COMPONENT_ISOLATION=process is missing sandbox layers: ${what}. Tenant code would run with less isolation than it needs. Give the process what the layers need (README, Security), or set COMPONENT_ISOLATION_DEGRADED=allow to run without them, or COMPONENT_ISOLATION=worker for trusted code only.`,
        );
      }
      log.warn(`component isolation degraded (COMPONENT_ISOLATION_DEGRADED=allow): missing ${what}`);
    }
    if (role === 'all') await serveBoth(config, log, executor, control!, edge!);
    else if (role === 'control-plane') await serveControlPlaneAlone(config, log, executor, control!);
    else await serveRuntimeAlone(config, log, executor, edge!);
    return { ...(control ? { control: control.port } : {}), ...(edge ? { runtime: edge.port } : {}) };
  } catch (error) {
    return failStart(error, startedExecutor && (() => startedExecutor!.close()), startLog);
  }
}

async function serveBoth(config: Config, log: Logger, executor: Executor, control: Listener, edge: Listener): Promise<void> {
  const platform = await createPlatform(config, log, { executor });
  const runtime = await createRuntime({
    config,
    db: platform.db,
    credentials: platform.credentials,
    jwt: platform.jwt,
    executor,
    log,
    embedded: { publisher: platform.publisher, controlPlane: (request) => platform.handle(request) },
  });
  // The executor runs the runtime's components (it only checks deployments for the control plane).
  executorMetrics(runtime.metrics, executor);
  // One shutdown for both: drain the runtime (and its executor) before the shared database closes.
  // The control plane's signal handlers first: they drain the runtime too, and must be in place
  // before either origin says it is listening. Both origins are served in the same turn.
  let served: ReturnType<typeof serveRuntime> | undefined;
  await serveControlPlane(control, platform, log, () => served?.drain() ?? Promise.resolve());
  served = serveRuntime(edge, runtime, config, log, { handleSignals: false, closeRest: () => executor.close() });
}

async function serveControlPlaneAlone(config: Config, log: Logger, executor: Executor, control: Listener): Promise<void> {
  const platform = await createPlatform(config, log, { executor });
  executorMetrics(platform.metrics, executor);
  await serveControlPlane(control, platform, log, () => executor.close());
}

async function serveRuntimeAlone(config: Config, log: Logger, executor: Executor, edge: Listener): Promise<void> {
  log.info(`api.platform calls go to the control plane at ${config.BASE_URL}`);
  const db = await openDatabase(config.DATABASE_URL);
  const jwt = await createJwtService({ secret: jwtSecret(config), publicKeyPem: config.JWT_PUBLIC_KEY, jwksUrl: config.JWT_JWKS_URL, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE });
  const credentials = new CredentialResolver(new PrincipalStore(db), jwt);
  const runtime = await createRuntime({ config, db, credentials, jwt, executor, log });
  executorMetrics(runtime.metrics, executor);
  serveRuntime(edge, runtime, config, log, {
    handleSignals: true,
    closeRest: async () => {
      await Promise.all([executor.close(), credentials.close()]);
      await db.close();
    },
  });
}
