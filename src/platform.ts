// The composition root: builds every part once from configuration and wires them together.
import { type Config, type Logger, createRedis, redisAnswers, indexKeys } from './core/index.ts';
import { openDatabase, type Database, type Orm } from './core/db/index.ts';
import type { Redis } from 'ioredis';
import type { PostgresOptions } from './core/db/postgres/index.ts';
import { PrincipalStore, loadPrincipal } from './core/identity/index.ts';
import { WorkspaceStore } from './core/identity/index.ts';
import { GroupStore } from './core/identity/index.ts';
import { CredentialResolver } from './core/identity/index.ts';
import { createJwtService, type JwtService } from './core/identity/index.ts';
import { AccountService } from './accounts/index.ts';
import { AgentStore } from './agents/index.ts';
import { AgentService } from './agents/index.ts';
import { AccountLister } from './accounts/index.ts';
import { AgentLister } from './agents/index.ts';
import { bootstrap, jwtSecret, secretsKey, type BootstrapResult } from './bootstrap.ts';
import { createControlPlaneApp, type ControlPlaneApp } from './app.ts';
import { missingLayers, type Executor } from '../runtime/executor/index.ts';
import { compileGuardSchema, lintGuardSchema } from '../runtime/guard/index.ts';
import {
  EndpointStore,
  TableComponentLookup,
  buildIndexSnapshot,
  readSettings,
  saveDefaultsForNewInstance,
  bumpIndexVersion,
  currentIndexVersion,
} from './core/definitions/index.ts';
import { EndpointService, EndpointSettingsService, EndpointOpenApi, EndpointLister } from './endpoints/index.ts';
import { CompositePublisher, InProcessChannel, RedisIndexPublisher, type IndexPublisher } from './core/index-channels/index.ts';
import { ComponentService, DeploymentService, SourceChecker } from './components/index.ts';
import { RunStore } from './runs/index.ts';
import { RunService } from './runs/index.ts';
import { RunEngine, engineObserver, runGauges } from './runs/engine/index.ts';
import { metricsResponder, OriginMetrics } from './core/metrics/index.ts';
import { observeRequests } from './http/index.ts';
import { RegistryToolHost } from './runs/tools/index.ts';
import { openAIModel } from './runs/models/index.ts';
import { RunEventStreams } from './runs/index.ts';
import { AuditLister } from './audit/index.ts';
import { SecretCipher, SecretService, SecretStore } from './secrets/index.ts';
import { McpClients } from './runs/tools/index.ts';

/** How long /readyz waits for Redis to answer a PING before it reports it not connected. */
const REDIS_READY_PING_MS = 500;

export interface Platform {
  config: Config;
  db: Database;
  app: ControlPlaneApp;
  /** The application's handle, counted and logged (GET /metrics, access lines): what servers and api.platform call. */
  handle: (request: Request) => Promise<Response>;
  /** This origin's metrics; the composition root adds the executor's when this process runs no runtime. */
  metrics: OriginMetrics;
  jwt: JwtService;
  principals: PrincipalStore;
  credentials: CredentialResolver;
  boot: BootstrapResult;
  runs: RunStore;
  /** The run engine: every control-plane process runs one (DESIGN §5). */
  engine: RunEngine;
  /** Live event streams; ended before the server drains (they would keep it waiting). */
  streams: RunEventStreams;
  /** In-process index publication: the embedded runtime subscribes here. */
  publisher: InProcessChannel;
  endpoints: EndpointService;
  /** The secrets store (MCP credentials); reveal() is for server code only. */
  secrets: SecretService;
  /** MCP servers' tools and calls (DESIGN §5 Tools), for the run engine's tool registry. */
  mcp: McpClients;
  close(): Promise<void>;
}

export interface PlatformOptions {
  postgres?: PostgresOptions;
  /** Runs deployment checks of node components (the runtime's executor in embedded mode). */
  executor: Executor;
}

export async function createPlatform(config: Config, log: Logger, options: PlatformOptions): Promise<Platform> {
  // Before anything is stored: a REDIS_URL naming a database the server lacks stops the start, and
  // a first start must not have made (and never shown) its bootstrap key by then.
  const redis = config.REDIS_URL ? await createRedis(config.REDIS_URL, log, 'control-plane-index') : null;
  const db = await openDatabase(config.DATABASE_URL, options.postgres);
  const principals = new PrincipalStore(db);
  const workspaces = new WorkspaceStore(db);
  const groups = new GroupStore(db);
  const jwt = await createJwtService({
    secret: jwtSecret(config),
    publicKeyPem: config.JWT_PUBLIC_KEY,
    jwksUrl: config.JWT_JWKS_URL,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
  });
  // Read before anything is stored, like the JWT secret: a damaged key file stops the start (exit 2).
  const secretCipher = new SecretCipher(secretsKey(config));
  const credentials = new CredentialResolver(principals, jwt);
  const boot = await bootstrap(config, db, { principals, workspaces }, log);
  if (boot.newInstance) await saveDefaultsForNewInstance(db);

  const endpointStore = new EndpointStore(db);
  const componentLookup = new TableComponentLookup(db);
  const publisher = new InProcessChannel(log);
  const publishers: IndexPublisher[] = [publisher];
  if (redis) {
    const keys = indexKeys((await workspaces.ensureDefault()).id);
    publishers.push(new RedisIndexPublisher(redis, keys, () => buildIndexSnapshot(db), log));
  }
  const indexPublisher = new CompositePublisher(publishers);
  const endpoints = new EndpointService({
    db,
    store: endpointStore,
    publisher: indexPublisher,
    contract: {
      components: componentLookup,
      guards: { compile: (schema) => compileGuardSchema(schema), lint: (schema) => lintGuardSchema(schema) },
      principal: (q, id) => loadPrincipal(db, q, id),
      settings: (q) => readSettings(db, q),
    },
  });

  const accounts = new AccountService({ db, principals, workspaces, groups, credentials, publisher: indexPublisher });
  const agents = new AgentService({
    db,
    agents: new AgentStore(db),
    principals,
    groups,
    workspaces,
    enabledModels: config.ENABLED_MODELS,
    allowHttpLoopback: config.MCP_ALLOW_HTTP_LOOPBACK === 'true',
    // Which code may run as a service account depends on the agents it owns: the index judged that.
    ownershipChanged: async () => indexPublisher.published(await db.write((q) => bumpIndexVersion(db, q))),
  });
  const sources = new SourceChecker();
  const componentDeps = {
    db,
    publisher: indexPublisher,
    // Endpoints that follow the latest revision are re-validated in the same transaction.
    onActiveRevisionChanged: (q: Orm, component: { id: string }) => endpoints.revalidateFollowers(q, component.id),
  };
  const components = new ComponentService({ ...componentDeps, sources });
  const deployments = new DeploymentService({ ...componentDeps, verifier: options.executor, log });
  await deployments.failStaleBuilds();
  const stopStaleSweep = deployments.sweepStaleBuilds();

  const secrets = new SecretService({ db, store: new SecretStore(db), cipher: secretCipher, workspaces });
  const mcp = new McpClients({ reveal: (workspaceId, secretId) => secrets.reveal(workspaceId, secretId), allowHttpLoopback: config.MCP_ALLOW_HTTP_LOOPBACK === 'true', log });
  const metrics = new OriginMetrics();
  controlPlaneGauges(metrics, db, redis);
  const runStore = new RunStore(db);
  const openai = openAIModel({ baseURL: config.MODEL_BASE_URL, apiKey: config.MODEL_API_KEY });
  const engine = new RunEngine({
    db,
    runs: runStore,
    log,
    leaseMs: config.RUN_LEASE_MS,
    enabledModels: config.ENABLED_MODELS,
    tools: (ledger) => new RegistryToolHost({ db, ledger, executor: options.executor, mcp, log }),
    models: (name) => (name !== 'scripted' && config.ENABLED_MODELS.includes(name) ? openai : undefined),
    observer: engineObserver(metrics),
  });
  const streams = new RunEventStreams(db, runStore);
  const app = createControlPlaneApp({
    baseUrl: config.BASE_URL,
    credentials,
    jwt,
    accounts,
    accountLister: new AccountLister(db, { principals, groups }),
    agents,
    agentLister: new AgentLister(db),
    components,
    deployments,
    runs: new RunService(db, runStore, agents, { enabledModels: config.ENABLED_MODELS, approvalTimeoutMs: config.AGENT_APPROVAL_TIMEOUT_MS, engine, streams }),
    audit: new AuditLister(db),
    secrets,
    endpoints: {
      db,
      endpoints,
      settings: new EndpointSettingsService(db, indexPublisher),
      openapi: new EndpointOpenApi(db, endpointStore, componentLookup, config.ENDPOINT_RUNTIME_URL),
      lister: new EndpointLister(db),
    },
    readiness: async () => {
      const database = await db.ping();
      const executor = options.executor.status();
      // The control plane's side of the definition index: the version its changes publish.
      const version = database ? await currentIndexVersion(db).catch(() => null) : null;
      return {
        // Deployments build in the executor: without a host up, as on the runtime, not ready.
        ready: database && version !== null && (executor.isolation === 'worker' || executor.hostsReady > 0),
        checks: {
          database,
          index: { loaded: version !== null, version },
          executor: { isolation: executor.isolation, layers: executor.layers, workers: executor.workers, degraded: missingLayers(executor), hostsReady: executor.hostsReady, hostsTotal: executor.hostsTotal, hostsSpare: executor.hostsSpare },
          // Where changes are announced to runtimes; while Redis is down they find them by polling
          // (DESIGN §9), so this informs and does not decide readiness.
          // Connected means answering: a hung server keeps its connection open.
          ...(redis ? { redis: { connected: await redisAnswers(redis, REDIS_READY_PING_MS) } } : {}),
        },
      };
    },
    metrics: metricsResponder(metrics, config.METRICS_TOKEN),
    log,
  });

  engine.start();
  return {
    config,
    db,
    app,
    handle: observeRequests((request) => app.handle(request), metrics, log.child({ origin: 'control-plane' })),
    metrics,
    streams,
    jwt,
    principals,
    credentials,
    boot,
    publisher,
    endpoints,
    secrets,
    mcp,
    runs: runStore,
    engine,
    async close() {
      streams.close();
      await engine.close();
      await mcp.close();
      stopStaleSweep();
      sources.close();
      await Promise.all([deployments.idle(), credentials.close()]);
      redis?.disconnect();
      await db.close();
    },
  };
}

/** The control plane's gauges, read at scrape time: the database and Redis answering, and its runs. */
function controlPlaneGauges(metrics: OriginMetrics, db: Database, redis: Redis | null): void {
  metrics.gauge('database_up', 'Whether the database answered a ping during this scrape (1) or not (0)', [], async () => [[{}, (await db.ping()) ? 1 : 0]]);
  if (redis) metrics.gauge('redis_up', 'Whether Redis answered a PING during this scrape (1) or not (0)', [], async () => [[{}, (await redisAnswers(redis, REDIS_READY_PING_MS)) ? 1 : 0]]);
  runGauges(metrics, db);
}
