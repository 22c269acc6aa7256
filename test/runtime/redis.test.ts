// Redis mode (DESIGN §9) across processes: the control plane runs here, a second runtime runs as
// `bun src/main.ts runtime` against the same Postgres database and a private redis-server. The index
// must converge within one poll interval after the subscriber is killed, after a Redis restart and
// while Redis is down, and the runtime must keep serving its last good index (and say so in
// /readyz) while Redis or the database is unreachable. That runtime reaches Postgres through a
// relay the test can cut: a partition between it and the database, nothing else.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import postgres from 'postgres';
import { ADMIN_KEY, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { POSTGRES_URL, databaseCases } from '../helpers/databases.ts';
import { redisServerBinary, startRedisServer, type RedisServer } from '../helpers/redis-server.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { startRuntimeProcess, type RuntimeProcess } from '../helpers/runtime-process.ts';
import { createRuntime, type Runtime } from '../../runtime/create.ts';
import { currentIndexVersion } from '../../src/core/definitions/index-version.ts';
import { CREDENTIAL_CACHE_MS } from '../../src/core/identity/credentials.ts';
import { REDIS_COMMAND_TIMEOUT_MS, indexKeys, type IndexKeys } from '../../src/core/redis.ts';
import { WorkspaceStore } from '../../src/core/identity/workspaces.ts';
import { silentLogger } from '../../src/core/log.ts';
import { tempDir } from '../helpers/temp.ts';

const CI = process.env.CI === 'true';
const POLL_MS = 500;
/** Slack on top of one poll interval: a reconnect backoff step plus a noisy 2-core machine. */
const SLACK_MS = 2500;
/** A readiness probe must answer within this even while a dependency is unreachable. */
const READYZ_MS = 2000;
/**
 * How long the runtime may take to use the database again once the partition heals: the
 * database client backs off its reconnects, and how fast it returns is not what is tested here.
 */
const RECOVERY_MS = 30_000;
/** Each phase waits for convergence several times; each wait is bounded by its own limit. */
const PHASE_TIMEOUT_MS = 90_000;
const JWT_SECRET = 'redis-mode-shared-secret-0123456789abcdef';

const hasPostgres = databaseCases().some((c) => c.name === 'postgres');
const hasRedis = redisServerBinary() !== null;
const missing = [!hasPostgres && `Postgres at ${POSTGRES_URL}`, !hasRedis && 'a redis-server binary'].filter(Boolean).join(' and ');
if (missing && !CI) console.log(`[skip] Redis-mode runtime suite: needs ${missing}`);
if (missing && CI) {
  test('the Redis-mode suite can run (required when CI=true)', () => {
    throw new Error(`missing ${missing}`);
  });
}

type Answer = { status: number; body: any };

/** A runtime as the test sees it: over HTTP (the process) or in-process. */
interface Target {
  invoke(path: string): Promise<Answer>;
  readyz(): Promise<Answer>;
}

const answer = async (r: Response): Promise<Answer> => {
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
};

const overHttp = (url: string): Target => ({
  invoke: async (path) => answer(await fetch(url + path, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })),
  readyz: async () => answer(await fetch(`${url}/readyz`)),
});

const inProcess = (runtime: Runtime): Target => ({
  invoke: async (path) => answer(await runtime.fetch(new Request(`http://runtime${path}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } }))),
  readyz: async () => answer(await runtime.fetch(new Request('http://runtime/readyz'))),
});

/** Polls `probe` until `done` holds or `ms` pass; returns the last observation either way. */
async function until<T>(ms: number, probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await Bun.sleep(50);
  }
}

describe.skipIf(missing !== '')('Redis mode', () => {
  const database = `rt_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const cleanups: (() => Promise<unknown>)[] = [];
  let redis: RedisServer;
  let link: TcpProxy;
  let cp: TestPlatform;
  /** This deployment's channel and snapshot keys. */
  let keys: IndexKeys;

  beforeAll(async () => {
    const admin = postgres(POSTGRES_URL, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`CREATE DATABASE "${database}"`);
    } finally {
      await admin.end({ timeout: 1 });
    }
    cleanups.push(async () => {
      const sql = postgres(POSTGRES_URL, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      } finally {
        await sql.end({ timeout: 1 });
      }
    });
    redis = await startRedisServer();
    cleanups.push(() => redis.stop());
    const direct = databaseUrl();
    link = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    cleanups.push(() => link.close());
    cp = await startTestPlatform({ DATABASE_URL: direct.href, REDIS_URL: redis.url, JWT_SECRET });
    cleanups.push(() => cp.close());
    keys = indexKeys((await new WorkspaceStore(cp.db).byName('default'))!.id);
  }, PHASE_TIMEOUT_MS);

  afterAll(async () => {
    // Newest first; every step runs even when an earlier one fails.
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => console.error('cleanup failed:', error));
  }, PHASE_TIMEOUT_MS);

  function databaseUrl(host?: { port: number }): URL {
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${database}`;
    if (host) {
      url.hostname = '127.0.0.1';
      url.port = String(host.port);
    }
    return url;
  }

  const served: { path: string; body: unknown }[] = [];
  let n = 0;
  /** Creates and activates a static-response Endpoint on the control plane; returns what it answers. */
  async function activate(label: string): Promise<{ path: string; body: unknown }> {
    const path = `/redis-mode/${++n}-${label}`;
    const body = { label, n };
    const created = await cp.json<{ id: string }>('POST', '/api/v1/endpoints', { body: { name: path, method: 'GET', path, staticResponse: { status: 200, body } } });
    if (created.status !== 201) throw new Error(`create: ${JSON.stringify(created.body)}`);
    const activated = await cp.json('POST', `/api/v1/endpoints/${created.body.id}/activate`);
    if (activated.status !== 200) throw new Error(`activate: ${JSON.stringify(activated.body)}`);
    const endpoint = { path, body };
    served.push(endpoint);
    return endpoint;
  }

  const subscribers = async () => {
    const reply = (await redis.command('PUBSUB', 'NUMSUB', keys.channel)) as [string, number];
    return Number(reply[1]);
  };

  describe('a second runtime process (bun src/main.ts runtime)', () => {
    let runtime: RuntimeProcess;
    let rt: Target;
    /** One poll interval as the runtime reports it, plus slack. */
    let within = POLL_MS + SLACK_MS;

    beforeAll(async () => {
      runtime = await startRuntimeProcess({
        DATABASE_URL: databaseUrl({ port: link.port }).href,
        REDIS_URL: redis.url,
        JWT_SECRET,
        COMPONENT_ISOLATION: 'worker',
        INDEX_POLL_MS: String(POLL_MS),
        DATA_DIR: tempDir('platform-runtime'),
      });
      cleanups.push(() => runtime.stop());
      rt = overHttp(runtime.url);
      // The interval in force decides the bound (INDEX_POLL_MS, or the default if it is not wired).
      const pollMs: unknown = (await rt.readyz()).body.checks.index.sync.pollMs;
      if (typeof pollMs === 'number') within = pollMs + SLACK_MS;
    }, PHASE_TIMEOUT_MS);

    /** What the runtime answers for `endpoint` once it serves it, or at the deadline. */
    const servedWithin = (endpoint: { path: string }) => until(within, () => rt.invoke(endpoint.path), (r) => r.status === 200);

    const databaseBack = async () => {
      await link.restore();
      const back = await until(RECOVERY_MS, rt.readyz, (r) => r.body.checks.database === true && r.body.checks.index.sync.databaseReachable === true);
      expect(back.body.checks).toMatchObject({ database: true, index: { sync: { databaseReachable: true } } });
    };

    /**
     * Proves announcements reach the runtime over pub/sub: with its database link cut, neither the
     * poll nor a reload can move its index, so only the announced version (read from the Redis
     * cache) can bring it to the control plane's version.
     */
    async function deliveredByPubSub(label: string): Promise<void> {
      await link.cut();
      try {
        expect((await until(within, rt.readyz, (r) => r.body.checks.database === false)).body.checks.database).toBe(false);
        const endpoint = await activate(label);
        const version = await currentIndexVersion(cp.db);
        expect((await until(within, rt.readyz, (r) => r.body.checks.index.version === version)).body.checks.index.version).toBe(version);
        await databaseBack();
        expect(await rt.invoke(endpoint.path)).toEqual({ status: 200, body: endpoint.body });
      } finally {
        await link.restore();
      }
    }

    test('an Endpoint activated on the control plane is served within one poll interval', async () => {
      // Ready may come a moment before the SUBSCRIBE is confirmed.
      const ready = await until(within, rt.readyz, (r) => r.body.checks.index.sync.redisConnected === true);
      expect(ready.status).toBe(200);
      expect(ready.body.checks.index).toMatchObject({ loaded: true, stale: false, sync: { mode: 'redis', redisConnected: true, databaseReachable: true } });
      expect(await subscribers()).toBe(1);

      expect((await rt.invoke(`/redis-mode/${n + 1}-first`)).status).toBe(404);
      const endpoint = await activate('first');
      expect(await servedWithin(endpoint)).toEqual({ status: 200, body: endpoint.body });
      await deliveredByPubSub('announced');
    }, PHASE_TIMEOUT_MS);

    test('after its subscriber connection is killed (CLIENT KILL TYPE pubsub)', async () => {
      expect(Number(await redis.command('CLIENT', 'KILL', 'TYPE', 'pubsub'))).toBe(1);
      const endpoint = await activate('after-kill');
      expect(await servedWithin(endpoint)).toEqual({ status: 200, body: endpoint.body });
      expect(await until(within, subscribers, (count) => count === 1)).toBe(1);
      await deliveredByPubSub('after-kill-announced');
    }, PHASE_TIMEOUT_MS);

    test('after a Redis restart, subscribed again', async () => {
      await redis.stop();
      await redis.start();
      const endpoint = await activate('after-restart');
      expect(await servedWithin(endpoint)).toEqual({ status: 200, body: endpoint.body });
      expect(await until(within, subscribers, (count) => count === 1)).toBe(1);
      await deliveredByPubSub('after-restart-announced');
      for (const earlier of served) expect(await rt.invoke(earlier.path)).toEqual({ status: 200, body: earlier.body });
    }, PHASE_TIMEOUT_MS);

    test('announcements of another deployment on the same Redis are not heard; a stray one of its own is undone by the poll', async () => {
      const version = await currentIndexVersion(cp.db);
      const snapshot = JSON.parse((await redis.command('GET', keys.snapshot(version))) as string) as { version: number; endpoints: unknown[] };
      expect(snapshot.version).toBe(version);
      // Another deployment (another database) announcing a far newer, empty index: a channel of its own.
      const other = indexKeys(crypto.randomUUID());
      await redis.command('SET', other.snapshot(version + 1000), JSON.stringify({ ...snapshot, version: version + 1000, endpoints: [] }));
      await redis.command('PUBLISH', other.channel, String(version + 1000));
      // A stray announcement on this deployment's own channel, of a version its database never reached.
      await redis.command('SET', keys.snapshot(version + 2000), JSON.stringify({ ...snapshot, version: version + 2000, endpoints: [] }));
      expect(Number(await redis.command('PUBLISH', keys.channel, String(version + 2000)))).toBe(1);
      await until(within, rt.readyz, (r) => r.body.checks.index.version === version + 2000);
      // The database decides: back to its version within a poll interval, every Endpoint served again.
      const back = await until(within, rt.readyz, (r) => r.body.checks.index.version === version);
      expect(back.body.checks.index.version).toBe(version);
      for (const earlier of served) expect(await rt.invoke(earlier.path)).toEqual({ status: 200, body: earlier.body });
    }, PHASE_TIMEOUT_MS);

    test('a cached snapshot in an older format (no approvals, or none per account) is not taken: the index comes from the database', async () => {
      const version = await currentIndexVersion(cp.db);
      const snapshot = JSON.parse((await redis.command('GET', keys.snapshot(version))) as string) as Record<string, unknown>;
      expect(snapshot.format).toBe(3);
      const { format: _format, ...unversioned } = snapshot;
      await redis.command('SET', keys.snapshot(version + 3000), JSON.stringify({ ...unversioned, version: version + 3000, endpoints: [] }));
      await redis.command('SET', keys.snapshot(version + 3001), JSON.stringify({ ...snapshot, format: 2, version: version + 3001, endpoints: [] }));
      expect(Number(await redis.command('PUBLISH', keys.channel, String(version + 3000)))).toBe(1);
      expect(Number(await redis.command('PUBLISH', keys.channel, String(version + 3001)))).toBe(1);
      // The same announcement of a current-format snapshot moves the runtime at once (previous test),
      // until the next poll takes it back; this one never moves it, not even for a moment.
      const seen = new Set<number>();
      for (const end = Date.now() + 1000; Date.now() < end; await Bun.sleep(10)) seen.add((await rt.readyz()).body.checks.index.version);
      expect([...seen]).toEqual([version]);
      for (const earlier of served) expect(await rt.invoke(earlier.path)).toEqual({ status: 200, body: earlier.body });
    }, PHASE_TIMEOUT_MS);

    test('with Redis down it keeps serving, follows the database, and /readyz reports the degraded sync', async () => {
      await redis.stop();
      try {
        const ready = await until(within, rt.readyz, (r) => r.body.checks.index.sync.redisConnected === false);
        // Serving the last good index is still serving: ready (200), flagged stale.
        expect(ready.status).toBe(200);
        expect(ready.body).toMatchObject({ status: 'ready', checks: { database: true } });
        expect(ready.body.checks.index).toMatchObject({ loaded: true, stale: true, sync: { mode: 'redis', redisConnected: false, databaseReachable: true } });
        for (const earlier of served) expect(await rt.invoke(earlier.path)).toEqual({ status: 200, body: earlier.body });

        const endpoint = await activate('redis-down');
        expect(await servedWithin(endpoint)).toEqual({ status: 200, body: endpoint.body });
        // The control plane says so too, and stays ready: its changes reach runtimes by polling.
        const controlReady = () => cp.json<{ checks: { redis?: { connected: boolean } } }>('GET', '/readyz', { key: null });
        const degraded = await until(within, controlReady, (r) => r.body.checks.redis?.connected === false);
        expect(degraded.status).toBe(200);
        expect(degraded.body.checks.redis).toEqual({ connected: false });
      } finally {
        if (!redis.running) await redis.start();
      }
      expect(await until(within, subscribers, (count) => count === 1)).toBe(1);
      const back = await until(within, rt.readyz, (r) => r.body.checks.index.stale === false);
      expect(back.body.checks.index).toMatchObject({ stale: false, sync: { redisConnected: true } });
      const controlBack = await until(within, () => cp.json<{ checks: { redis?: { connected: boolean } } }>('GET', '/readyz', { key: null }), (r) => r.body.checks.redis?.connected === true);
      expect(controlBack.body.checks.redis).toEqual({ connected: true });
    }, PHASE_TIMEOUT_MS);

    test('with Redis hung (connections open, nothing answered) changes still arrive by polling, and both origins say Redis is not answering', async () => {
      redis.pause();
      try {
        // The change is answered (before: held on the Redis write until the connection was dropped).
        const endpoint = await activate('redis-hung');
        // The runtime's snapshot read gives up within the command timeout, then the database serves it.
        expect(await until(within + REDIS_COMMAND_TIMEOUT_MS, () => rt.invoke(endpoint.path), (r) => r.status === 200)).toEqual({ status: 200, body: endpoint.body });
        const ready = await until(within + REDIS_COMMAND_TIMEOUT_MS, rt.readyz, (r) => r.body.checks.index.sync.redisConnected === false);
        expect(ready.status).toBe(200);
        expect(ready.body.checks.index).toMatchObject({ loaded: true, stale: true, sync: { mode: 'redis', redisConnected: false, databaseReachable: true } });
        const controlReady = await cp.json<{ checks: { redis?: { connected: boolean } } }>('GET', '/readyz', { key: null });
        expect(controlReady.status).toBe(200);
        expect(controlReady.body.checks.redis).toEqual({ connected: false });
        // Later changes too, the runtime no longer waiting on Redis for them.
        const next = await activate('redis-hung-2');
        expect(await servedWithin(next)).toEqual({ status: 200, body: next.body });
      } finally {
        redis.resume();
      }
      const back = await until(within + REDIS_COMMAND_TIMEOUT_MS, rt.readyz, (r) => r.body.checks.index.stale === false);
      expect(back.body.checks.index).toMatchObject({ stale: false, sync: { redisConnected: true } });
      await deliveredByPubSub('after-hang-announced');
    }, PHASE_TIMEOUT_MS);

    test('with the database unreachable it keeps its last good index, and /readyz says so promptly', async () => {
      const before = (await rt.readyz()).body.checks.index.version;
      let slowest = 0;
      const timedReadyz = async () => {
        const started = performance.now();
        const r = await rt.readyz();
        slowest = Math.max(slowest, performance.now() - started);
        return r;
      };
      await link.cut();
      try {
        const ready = await until(within, timedReadyz, (r) => r.body.checks.database === false && r.body.checks.index.sync.databaseReachable === false);
        expect(ready.status).toBe(200);
        expect(ready.body).toMatchObject({ status: 'ready', checks: { database: false } });
        expect(ready.body.checks.index).toMatchObject({ loaded: true, version: before, stale: true, sync: { databaseReachable: false, redisConnected: true } });
        for (let i = 0; i < 5; i++) {
          await timedReadyz();
          await Bun.sleep(POLL_MS);
        }
        expect(Math.round(slowest)).toBeLessThanOrEqual(READYZ_MS);
      } finally {
        await databaseBack();
      }
      expect((await until(within, rt.readyz, (r) => r.body.checks.index.stale === false)).body.checks.index.stale).toBe(false);
      const endpoint = await activate('database-back');
      expect(await servedWithin(endpoint)).toEqual({ status: 200, body: endpoint.body });
    }, PHASE_TIMEOUT_MS);

    test('with the database unreachable, invocations are still answered from the last good index (past the credential cache)', async () => {
      const endpoint = served[0]!;
      expect(await rt.invoke(endpoint.path)).toEqual({ status: 200, body: endpoint.body });
      // A key this runtime has never seen: without the database it cannot be checked.
      const fresh = await cp.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { name: 'unseen' } });
      await link.cut();
      try {
        await until(within, rt.readyz, (r) => r.body.checks.index.sync.databaseReachable === false);
        await Bun.sleep(CREDENTIAL_CACHE_MS + 500);
        expect(await rt.invoke(endpoint.path)).toEqual({ status: 200, body: endpoint.body });
        const unseen = await fetch(runtime.url + endpoint.path, { headers: { authorization: `Bearer ${fresh.body.key}` } });
        expect(unseen.status).toBe(503);
        expect(unseen.headers.get('retry-after')).toBe('1');
        expect(await unseen.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      } finally {
        await databaseBack();
      }
    }, PHASE_TIMEOUT_MS);
  });

  // With the poll out of the picture (10 minutes), only pub/sub and the reload that follows each
  // (re)subscription can move this runtime's index.
  describe('a runtime whose poll never fires in time', () => {
    const QUICK_MS = SLACK_MS;
    let runtime: Runtime;
    let rt: Target;

    beforeAll(async () => {
      runtime = await createRuntime({ config: cp.config, db: cp.db, credentials: cp.credentials, jwt: cp.jwt, executor: cp.executor, log: silentLogger, pollMs: 600_000 });
      cleanups.push(() => runtime.close());
      rt = inProcess(runtime);
    }, PHASE_TIMEOUT_MS);

    const servedQuickly = (endpoint: { path: string }, ms = QUICK_MS) => until(ms, () => rt.invoke(endpoint.path), (r) => r.status === 200);

    test('is subscribed from the start: an announcement alone moves it', async () => {
      expect((await until(QUICK_MS, rt.readyz, (r) => r.body.checks.index.sync.redisConnected === true)).body.checks.index.sync).toMatchObject({ redisConnected: true, pollMs: 600_000 });
      const endpoint = await activate('announced-only');
      expect(await servedQuickly(endpoint)).toEqual({ status: 200, body: endpoint.body });
    }, PHASE_TIMEOUT_MS);

    test('reloads after its subscriber reconnects, catching what was announced while it was away', async () => {
      expect(Number(await redis.command('CLIENT', 'KILL', 'TYPE', 'pubsub'))).toBeGreaterThanOrEqual(1);
      // Announced before the client's reconnect delay (200 ms) has passed: this message is lost.
      const endpoint = await activate('lost-announcement');
      expect(await servedQuickly(endpoint)).toEqual({ status: 200, body: endpoint.body });
    }, PHASE_TIMEOUT_MS);

    test('reloads after a Redis restart, catching a change made while Redis was down', async () => {
      await redis.stop();
      let endpoint: { path: string; body: unknown };
      try {
        endpoint = await activate('while-redis-down');
      } finally {
        await redis.start();
      }
      // The client's reconnect backoff grows to 2 s while Redis is down.
      expect(await servedQuickly(endpoint, QUICK_MS + 2000)).toEqual({ status: 200, body: endpoint.body });
      const after = await activate('after-redis-restart');
      expect(await servedQuickly(after)).toEqual({ status: 200, body: after.body });
    }, PHASE_TIMEOUT_MS);

    test('a runtime started while Redis is down subscribes once Redis is up', async () => {
      await redis.stop();
      let late: Runtime;
      try {
        late = await createRuntime({ config: cp.config, db: cp.db, credentials: cp.credentials, jwt: cp.jwt, executor: cp.executor, log: silentLogger, pollMs: 600_000 });
        cleanups.push(() => late.close());
      } finally {
        await redis.start();
      }
      const target = inProcess(late);
      const ready = await until(QUICK_MS + 2000, target.readyz, (r) => r.body.checks.index.sync.redisConnected === true);
      expect(ready.body.checks.index.sync.redisConnected).toBe(true);
      const endpoint = await activate('late-subscriber');
      expect(await until(QUICK_MS, () => target.invoke(endpoint.path), (r) => r.status === 200)).toEqual({ status: 200, body: endpoint.body });
    }, PHASE_TIMEOUT_MS);
  });
});
