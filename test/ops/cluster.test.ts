// `npm run cluster` (DESIGN §12) as an operator runs it: real server processes on a Postgres
// database of their own and the machine's Redis, read back through the CLUSTER line, the log files
// and /proc; then stopped by a signal to npm's process, with nothing left running.
import { describe, expect, test } from 'bun:test';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { POSTGRES_URL, databaseCases } from '../helpers/databases.ts';
import { freshDatabase } from '../runs/processes.ts';
import { tempDir } from '../helpers/temp.ts';

const ROOT = join(import.meta.dir, '..', '..');
const CI = process.env.CI === 'true';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADMIN = 'sk-cluster-admin-0123456789abcdefghijklmn';

async function redisReachable(): Promise<boolean> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

const missing = [!databaseCases().some((c) => c.name === 'postgres') && `Postgres at ${POSTGRES_URL}`, !(await redisReachable()) && `Redis at ${REDIS_URL}`].filter(Boolean).join(' and ');
if (missing && !CI) console.log(`[skip] npm run cluster suite: needs ${missing}`);
if (missing && CI) {
  test('the cluster suite can run (required when CI=true)', () => {
    throw new Error(`missing ${missing}`);
  });
}

interface ClusterLine {
  controlPlanes: string[];
  runtimes: string[];
  pids: Record<string, number>;
}

interface Run {
  npmPid: number;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** `npm run cluster` with the test's environment and `env` over it (no admin key unless given). */
function runCluster(env: Record<string, string>, options: { ownGroup?: boolean } = {}): Run {
  const { PLATFORM_ADMIN_API_KEY: _k, JWT_SECRET: _j, SECRETS_KEY: _s, BASE_URL: _b, ENDPOINT_RUNTIME_URL: _r, ...inherited } = process.env;
  const npm = spawn('npm', ['run', '--silent', 'cluster'], {
    cwd: ROOT,
    env: { ...inherited, REDIS_URL, COMPONENT_ISOLATION: 'worker', EXECUTOR_HOSTS: '1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, as a terminal gives a foreground job.
    detached: options.ownGroup ?? false,
  });
  let out = '';
  let err = '';
  npm.stdout.on('data', (b) => (out += b));
  npm.stderr.on('data', (b) => (err += b));
  return { npmPid: npm.pid!, stdout: () => out, stderr: () => err, exited: new Promise((resolve) => npm.on('exit', (code) => resolve(code))) };
}

/** Waits for the CLUSTER line; fails with what the script said if it exits or takes too long. */
async function clusterLine(run: Run): Promise<ClusterLine> {
  let exit: number | null | undefined;
  void run.exited.then((code) => (exit = code));
  const deadline = Date.now() + 90_000;
  for (;;) {
    const line = /^CLUSTER (.+)$/m.exec(run.stdout())?.[1];
    if (line) return JSON.parse(line);
    if (exit !== undefined || Date.now() > deadline) throw new Error(`no CLUSTER line (exit ${exit}):\n${run.stdout()}${run.stderr()}`);
    await Bun.sleep(50);
  }
}

/** A base port with `count` free ports from it, on every interface (where the servers bind). */
async function freePorts(count: number): Promise<number> {
  const bind = (port: number) => new Promise<Server | null>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen(port, '0.0.0.0', () => resolve(server));
  });
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    const servers = await Promise.all(Array.from({ length: count }, (_, i) => bind(base + i)));
    await Promise.all(servers.map((s) => s && new Promise((r) => s.close(r))));
    if (servers.every(Boolean)) return base;
  }
  throw new Error(`no ${count} consecutive free ports`);
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');

/** Pids of live processes whose environment names `dataDir`: npm, the script and what it started. */
function startedWith(dataDir: string): number[] {
  return readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map(Number).filter((pid) => {
    try {
      return alive(pid) && readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`DATA_DIR=${dataDir}`);
    } catch {
      return false;
    }
  });
}

const readyz = (url: string) => fetch(`${url}/readyz`).then((r) => r.status, () => 0);

/** `signal` to npm's process, or with `group` to its whole process group (a terminal's Ctrl-C). */
async function stopWith(run: Run, signal: 'SIGTERM' | 'SIGINT', dataDir: string, group = false): Promise<void> {
  process.kill(group ? -run.npmPid : run.npmPid, signal);
  const code = await Promise.race([run.exited, Bun.sleep(45_000).then(() => 'timeout' as const)]);
  expect(code, run.stderr()).toBe(0);
  expect(run.stderr()).toContain(`${signal} received: stopping`);
  expect(run.stderr()).toContain('every process has stopped');
  expect(startedWith(dataDir)).toEqual([]);
}

describe.skipIf(missing !== '')('npm run cluster', () => {
  test('two control planes and two runtimes: one CLUSTER line, the server pids, a log each, shared secrets; SIGTERM to npm stops them all', async () => {
    const db = await freshDatabase();
    const dataDir = tempDir('cluster');
    const port = await freePorts(4);
    const run = runCluster({ DATABASE_URL: db.url, DATA_DIR: dataDir, CLUSTER_PORT: String(port), CLUSTER_CONTROL_PLANES: '2', CLUSTER_RUNTIMES: '2' });
    try {
      const cluster = await clusterLine(run);
      const url = (offset: number) => `http://127.0.0.1:${port + offset}`;
      expect(cluster).toEqual({
        controlPlanes: [url(0), url(1)],
        runtimes: [url(2), url(3)],
        pids: { 'control-plane-1': expect.any(Number), 'control-plane-2': expect.any(Number), 'runtime-1': expect.any(Number), 'runtime-2': expect.any(Number) },
      });
      expect(run.stdout().trim().split('\n')).toHaveLength(1);
      for (const u of [...cluster.controlPlanes, ...cluster.runtimes]) expect(await readyz(u)).toBe(200);
      // Each pid is the server itself, in its role, not a shell or npm in between.
      for (const [name, pid] of Object.entries(cluster.pids)) {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        expect(argv.some((a) => a.endsWith('src/main.ts'))).toBe(true);
        expect(argv).toContain(name.replace(/-\d+$/, ''));
        expect(argv).toContain('--max-http-header-size=131072');
      }
      // The only server processes on this data directory are the ones named (npm and the script aside).
      const servers = startedWith(dataDir).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('src/main.ts'));
      expect(servers.sort()).toEqual(Object.values(cluster.pids).sort());
      const logs = join(dataDir, 'logs');
      expect(readdirSync(logs).sort()).toEqual(['control-plane-1.log', 'control-plane-2.log', 'runtime-1.log', 'runtime-2.log']);
      const log = (name: string) => readFileSync(join(logs, `${name}.log`), 'utf8');
      for (const name of Object.keys(cluster.pids)) expect(log(name)).toMatch(/listening on/);
      // Every process was told the origins and the shared secrets: none warns of a missing one.
      for (const name of Object.keys(cluster.pids)) expect(log(name)).not.toMatch(/(JWT_SECRET|SECRETS_KEY|BASE_URL|ENDPOINT_RUNTIME_URL) is not set/);
      expect(existsSync(join(dataDir, 'jwt-secret'))).toBe(true);

      // The bootstrap key: the script says which log has it, and never prints it.
      const where = /(control-plane-\d)\.log \(store it/.exec(run.stderr())?.[1];
      expect(where, run.stderr()).toBeDefined();
      const admin = /Bootstrap INSTANCE_ADMIN API key[^\n]*\n\s*(sk-\S+)/.exec(log(where!))![1]!;
      expect(run.stdout() + run.stderr()).not.toContain(admin);

      const call = async (base: string, method: string, path: string, body?: unknown, key = admin) => {
        const r = await fetch(`${base}/api/v1${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
        return { status: r.status, body: (await r.json()) as any };
      };
      const [cp1, cp2] = cluster.controlPlanes as [string, string];
      const user = await call(cp1, 'POST', '/users', { name: 'Ann', email: 'ann@example.com', roles: ['AGENT_ADMIN'], platformAccess: true });
      expect(user.status).toBe(201);
      expect((await call(cp2, 'GET', `/users/${user.body.id}`)).body.name).toBe('Ann');
      // A platform token minted by one control plane is accepted by the other (one JWT secret).
      const token = await call(cp1, 'POST', '/auth/token', {});
      expect(token.status).toBe(200);
      expect((await call(cp2, 'GET', '/me', undefined, token.body.token)).status).toBe(200);
      // An Endpoint activated through one control plane is served by every runtime (through Redis).
      const endpoint = await call(cp2, 'POST', '/endpoints', { name: 'hello', method: 'GET', path: '/hello-cluster', staticResponse: { status: 200, body: { hello: 'cluster' } } });
      expect(endpoint.status).toBe(201);
      expect((await call(cp2, 'POST', `/endpoints/${endpoint.body.id}/activate`)).status).toBe(200);
      for (const runtime of cluster.runtimes) {
        const deadline = Date.now() + 10_000;
        let status = 0;
        while (status !== 200 && Date.now() < deadline) {
          status = (await fetch(`${runtime}/hello-cluster`, { headers: { authorization: `Bearer ${admin}` } })).status;
          if (status !== 200) await Bun.sleep(100);
        }
        expect(status).toBe(200);
      }

      await stopWith(run, 'SIGTERM', dataDir);
      for (const pid of Object.values(cluster.pids)) expect(alive(pid)).toBe(false);
      expect(log('control-plane-1')).toContain('shutting down');
      expect(log('runtime-1')).toContain('draining');
    } finally {
      for (const pid of startedWith(dataDir)) process.kill(pid, 'SIGKILL');
      await db.drop();
    }
  }, 150_000);

  test('a process that dies is reported and the others keep serving; Ctrl-C (SIGINT to the process group) then stops the rest', async () => {
    const db = await freshDatabase();
    const dataDir = tempDir('cluster');
    const port = await freePorts(3);
    const run = runCluster({ DATABASE_URL: db.url, DATA_DIR: dataDir, CLUSTER_PORT: String(port), PLATFORM_ADMIN_API_KEY: ADMIN }, { ownGroup: true });
    try {
      const cluster = await clusterLine(run);
      expect(cluster.controlPlanes).toEqual([`http://127.0.0.1:${port}`]);
      expect(cluster.runtimes).toEqual([`http://127.0.0.1:${port + 1}`, `http://127.0.0.1:${port + 2}`]);
      expect(run.stderr()).not.toContain('bootstrap INSTANCE_ADMIN API key'); // it was given
      process.kill(cluster.pids['runtime-2']!, 'SIGKILL');
      const deadline = Date.now() + 10_000;
      while (!run.stderr().includes('runtime-2') || !/runtime-2 \(pid \d+\) exited with signal SIGKILL/.test(run.stderr())) {
        if (Date.now() > deadline) throw new Error(run.stderr());
        await Bun.sleep(50);
      }
      expect(run.stderr()).toContain(join(dataDir, 'logs', 'runtime-2.log'));
      expect(await readyz(cluster.controlPlanes[0]!)).toBe(200);
      expect(await readyz(cluster.runtimes[0]!)).toBe(200);
      await stopWith(run, 'SIGINT', dataDir, true);
    } finally {
      for (const pid of startedWith(dataDir)) process.kill(pid, 'SIGKILL');
      await db.drop();
    }
  }, 120_000);

  test('a process that cannot start stops the others: the script exits non-zero naming it and its log', async () => {
    const db = await freshDatabase();
    const dataDir = tempDir('cluster');
    const port = await freePorts(2);
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(port + 1, '0.0.0.0', resolve)); // runtime-1's port
    const run = runCluster({ DATABASE_URL: db.url, DATA_DIR: dataDir, CLUSTER_PORT: String(port), CLUSTER_RUNTIMES: '1', PLATFORM_ADMIN_API_KEY: ADMIN });
    try {
      expect(await run.exited).toBe(1);
      expect(run.stdout()).toBe('');
      expect(run.stderr()).toMatch(/runtime-1 \(pid \d+\) exited with exit code 1 before it was ready/);
      expect(run.stderr()).toContain(join(dataDir, 'logs', 'runtime-1.log'));
      expect(startedWith(dataDir)).toEqual([]);
    } finally {
      squatter.close();
      for (const pid of startedWith(dataDir)) process.kill(pid, 'SIGKILL');
      await db.drop();
    }
  }, 60_000);

  test('a process not ready in time: the script names it and its log, and stops everything', async () => {
    const db = await freshDatabase();
    const dataDir = tempDir('cluster');
    const port = await freePorts(2);
    const run = runCluster({ DATABASE_URL: db.url, DATA_DIR: dataDir, CLUSTER_PORT: String(port), CLUSTER_RUNTIMES: '1', CLUSTER_READY_TIMEOUT_MS: '1', PLATFORM_ADMIN_API_KEY: ADMIN });
    try {
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toContain(`control-plane-1 did not answer http://127.0.0.1:${port}/readyz with 200 within 1 ms`);
      expect(run.stderr()).toContain(join(dataDir, 'logs', 'control-plane-1.log'));
      expect(startedWith(dataDir)).toEqual([]);
    } finally {
      for (const pid of startedWith(dataDir)) process.kill(pid, 'SIGKILL');
      await db.drop();
    }
  }, 60_000);
});

test('without Postgres and Redis, or with bad counts, the cluster does not start: exit 2 naming each variable', async () => {
  const dataDir = tempDir('cluster');
  const run = runCluster({ DATABASE_URL: `sqlite:${join(dataDir, 'p.db')}`, REDIS_URL: '', DATA_DIR: dataDir, CLUSTER_RUNTIMES: '0', CLUSTER_CONTROL_PLANES: 'two' });
  expect(await run.exited).toBe(2);
  expect(run.stdout()).toBe('');
  const said = run.stderr();
  expect(said).toContain('DATABASE_URL: must be a Postgres URL');
  expect(said).toContain('not sqlite:');
  expect(said).toContain('REDIS_URL: must be set');
  expect(said).toContain('CLUSTER_RUNTIMES: must be an integer from 1');
  expect(said).toContain('CLUSTER_CONTROL_PLANES: must be an integer from 1');
  expect(existsSync(join(dataDir, 'logs'))).toBe(false);
  // A server variable with a bad value is the server's own message, before anything starts.
  const bad = runCluster({ DATABASE_URL: POSTGRES_URL, DATA_DIR: dataDir, LOG_LEVEL: 'loud' });
  expect(await bad.exited).toBe(2);
  expect(bad.stderr()).toContain('LOG_LEVEL');
  expect(existsSync(join(dataDir, 'logs'))).toBe(false);
}, 30_000);
