// Builds the endpoint runtime from its parts: index (with its sync), executor, recorder, invoker.
import { type Config, type Logger, createRedis, indexKeys } from '../src/core/index.ts';
import type { Database } from '../src/core/db/index.ts';
import { type CredentialResolver, type JwtService, WorkspaceStore } from '../src/core/identity/index.ts';
import { buildIndexSnapshot, currentIndexVersion } from '../src/core/definitions/index.ts';
import { DatabasePoll, RedisIndexSubscriber, type InProcessChannel } from '../src/core/index-channels/index.ts';
import type { Executor } from './executor/index.ts';
import { missingLayers } from './executor/index.ts';
import { IndexHolder } from './index/index.ts';
import { IndexSync } from './index/index.ts';
import { createRecorder, type InvocationRecorder } from './recorder/index.ts';
import { PlatformCaller } from './platform-call.ts';
import { Invoker, type RequestTimeouts } from './invoke.ts';
import { runtimeFetch, type RuntimeReadiness } from './server.ts';
import { metricsResponder, OriginMetrics } from '../src/core/metrics/index.ts';
import { RequestObserver } from './observe.ts';
import { runtimeGauges } from './metrics.ts';

export interface RuntimeOptions {
  config: Config;
  db: Database;
  credentials: CredentialResolver;
  jwt: JwtService;
  executor: Executor;
  log: Logger;
  /** Embedded mode: in-process publication and the in-process control plane for api.platform. */
  embedded?: { publisher: InProcessChannel; controlPlane: (request: Request) => Promise<Response> | Response };
  pollMs?: number;
}

export interface Runtime {
  /** The server's fetch: pass the server so that a long invocation's connection is kept open. */
  fetch: (request: Request, server?: RequestTimeouts) => Response | Promise<Response>;
  index: IndexHolder;
  recorder: InvocationRecorder;
  readiness: () => Promise<RuntimeReadiness>;
  /** This origin's metrics (GET /metrics); the composition root adds the executor's where it runs components. */
  metrics: OriginMetrics;
  close(): Promise<void>;
}

export async function createRuntime(o: RuntimeOptions): Promise<Runtime> {
  const index = new IndexHolder(o.log);
  const redis = o.config.REDIS_URL
    ? {
        client: await createRedis(o.config.REDIS_URL, o.log, 'runtime-index'),
        subscriber: await createRedis(o.config.REDIS_URL, o.log, 'runtime-index-sub'),
        keys: indexKeys((await new WorkspaceStore(o.db).ensureDefault()).id),
      }
    : undefined;
  const pollMs = o.pollMs ?? o.config.INDEX_POLL_MS;
  const sync = new IndexSync({
    holder: index,
    fromDatabase: () => buildIndexSnapshot(o.db),
    ...(o.embedded ? { inProcess: o.embedded.publisher.subscriber() } : {}),
    ...(redis ? { redis: new RedisIndexSubscriber({ ...redis, probeMs: pollMs, log: o.log }) } : {}),
    poll: new DatabasePoll({ databaseVersion: () => currentIndexVersion(o.db), pollMs, log: o.log }),
    log: o.log,
  });
  await sync.start();

  const retentionDays = o.config.AUDIT_RETENTION_DAYS;
  const recorder = await createRecorder(o.db, o.log, o.config.DATA_DIR, retentionDays === undefined ? undefined : retentionDays * 86_400_000);
  const platform = new PlatformCaller({ jwt: o.jwt, baseUrl: o.config.BASE_URL, handle: o.embedded?.controlPlane });
  const metrics = new OriginMetrics();
  runtimeGauges(metrics, { db: o.db, index, ...(redis ? { redis: redis.client } : {}) });
  // Access lines say which origin answered (both share one log under npm start).
  const observer = new RequestObserver(metrics, o.log.child({ origin: 'runtime' }));
  const invoker = new Invoker({ index, credentials: o.credentials, executor: o.executor, recorder, platform, log: o.log, observer });

  const readiness = async (): Promise<RuntimeReadiness> => {
    const database = await o.db.ping();
    const idx = index.health();
    const executor = o.executor.status();
    const syncHealth = sync.health();
    // Serving the last good index is still serving: readiness needs an index and executor hosts.
    const ready = idx.loaded && (executor.isolation === 'worker' || executor.hostsReady > 0);
    return {
      ready,
      checks: {
        database,
        // Stale: changes may reach this runtime late (the database unreachable, Redis not answering),
        // or the database is at a version it does not serve yet.
        index: { ...idx, sync: syncHealth, stale: !database || syncHealth.redisConnected === false || (syncHealth.databaseVersion ?? 0) > (idx.version ?? 0) },
        executor: { isolation: executor.isolation, layers: executor.layers, workers: executor.workers, degraded: missingLayers(executor), hostsReady: executor.hostsReady, hostsTotal: executor.hostsTotal, hostsSpare: executor.hostsSpare },
      },
    };
  };

  return {
    fetch: runtimeFetch({ invoker, readiness, metrics: metricsResponder(metrics, o.config.METRICS_TOKEN), observer }),
    index,
    metrics,
    recorder,
    readiness,
    async close() {
      await sync.stop();
      await recorder.close();
      redis?.client.disconnect();
      redis?.subscriber.disconnect();
    },
  };
}
