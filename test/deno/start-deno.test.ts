// The platform under Deno (DESIGN §13), black-box: `npm run start:deno` exactly as package.json
// says it (its command line run by sh, as npm would, with the pinned deno of node_modules/.bin), on
// the embedded SQLite and on Postgres, driven over HTTP only: readiness says component Workers run
// with Deno's permissions denying everything, the control plane serves lists and event streams,
// components (lowcode and a TypeScript node module) run in the sandbox and can reach nothing, and
// SIGTERM stops the server. Nothing may be downloaded: the npm registry and any proxy point at a
// closed port.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { collect } from '../helpers/child-output.ts';
import { POSTGRES_URL } from '../helpers/databases.ts';
import { tempDir } from '../helpers/temp.ts';

const ROOT = join(import.meta.dir, '..', '..');
const ADMIN = 'sk-deno-admin-key-0123456789abcdefghijkl';
const CLOSED = 'http://127.0.0.1:9';
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

interface DenoServer {
  cp: string;
  runtime: string;
  log(): string;
  api(method: string, path: string, body?: unknown): Promise<Reply>;
  invoke(method: string, path: string): Promise<Reply>;
  /** SIGTERM; resolves with the exit code (SIGKILL after 20 s: then -1). */
  stop(): Promise<number>;
}

async function reply(response: Response): Promise<Reply> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: the text
  }
  return { status: response.status, headers: response.headers, body };
}

async function startDeno(env: Record<string, string>): Promise<DenoServer> {
  const data = tempDir('deno-start');
  let output = '';
  const child = Bun.spawn(['sh', '-c', scripts['start:deno']!], {
    cwd: ROOT,
    env: {
      PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
      PORT: '0',
      RUNTIME_PORT: '0',
      DATA_DIR: data,
      DATABASE_URL: `sqlite:${join(data, 'platform.db')}`,
      PLATFORM_ADMIN_API_KEY: ADMIN,
      EXECUTOR_HOSTS: '1',
      // Whatever this machine's sandbox lacks is reported below, not a failed start.
      COMPONENT_ISOLATION_DEGRADED: 'allow',
      // Nothing is fetched at run time: any attempt would meet a closed port.
      NPM_CONFIG_REGISTRY: `${CLOSED}/`,
      HTTP_PROXY: CLOSED,
      HTTPS_PROXY: CLOSED,
      ...env,
    },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const killHard = () => child.kill('SIGKILL');
  process.once('exit', killHard);
  void collect(child.stdout, (text) => (output += text));
  void collect(child.stderr, (text) => (output += text));
  const stop = async (): Promise<number> => {
    child.kill('SIGTERM');
    const exited = await Promise.race([child.exited, Bun.sleep(20_000).then(() => null)]);
    process.off('exit', killHard);
    if (exited !== null) return exited;
    child.kill('SIGKILL');
    await child.exited;
    return -1;
  };
  const deadline = Date.now() + 60_000;
  let cp: string | undefined;
  let runtime: string | undefined;
  while (!cp || !runtime) {
    if (child.exitCode !== null) throw new Error(`deno exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the server did not listen within 60 s:\n${output}`);
    }
    cp = /control plane listening on (http:\/\/[^\s"]+)/.exec(output)?.[1];
    runtime = /endpoint runtime listening on (http:\/\/[^\s"]+)/.exec(output)?.[1];
    await Bun.sleep(100);
  }
  const call = (origin: string, method: string, path: string, body?: unknown) =>
    fetch(origin + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(reply);
  return {
    cp: cp!,
    runtime: runtime!,
    log: () => output,
    api: (method, path, body) => call(cp!, method, `/api/v1${path}`, body),
    invoke: (method, path) => call(runtime!, method, path),
    stop,
  };
}

/** A database of its own on the Postgres server (the server process migrates its public schema). */
async function postgresDatabase(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const admin = postgres(POSTGRES_URL, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await admin`SELECT 1`;
  } catch {
    await admin.end({ timeout: 1 });
    return null;
  }
  const name = `deno_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end({ timeout: 1 });
    },
  };
}

const pg = await postgresDatabase();
if (!pg && process.env.CI !== 'true') console.log(`[skip] Deno on Postgres: no server at ${POSTGRES_URL}`);
if (!pg && process.env.CI === 'true') {
  test('Postgres is reachable (required when CI=true)', () => {
    throw new Error(`No Postgres server at ${POSTGRES_URL}`);
  });
}
afterAll(() => pg?.drop());

const cases: [string, Record<string, string>][] = [['sqlite', {}], ...(pg ? [['postgres', { DATABASE_URL: pg.url }] as [string, Record<string, string>]] : [])];

/** Lowcode code that tries each thing the Worker must not do and returns how each was refused. */
const PROBE = `
const tries = {
  env: () => Deno.env.get('PATH'),
  processEnv: () => Object.keys(process.env).length,
  read: () => Deno.readTextFileSync('/etc/hostname'),
  write: () => Deno.writeTextFileSync('/tmp/deno-probe', 'x'),
  run: () => new Deno.Command('/bin/true').outputSync(),
  ffi: () => Deno.dlopen('libc.so.6', {}),
  net: () => Deno.connect({ hostname: '127.0.0.1', port: 80 }),
  fetch: () => fetch(input.inputs.target),
  // Not covered by Deno's permissions; taken away before component code runs (process-guards.ts).
  exit: () => Deno.exit(0),
  kill: () => Deno.kill(1, 'SIGTERM'),
  close: () => self.close(),
  processExit: () => process.exit(0),
  builtinModule: () => process.getBuiltinModule('node:net'),
};
const out = {};
for (const [name, attempt] of Object.entries(tries)) {
  try {
    await attempt();
    out[name] = 'allowed';
  } catch (error) {
    out[name] = error && error.name === 'NotCapable' ? error.name : /not available to component code/.test(String(error)) ? 'refused' : String(error);
  }
}
return out;`;

const NODE_MODULE = `
interface Greeting { hello: string; n: number }
export default async function (api: any): Promise<Greeting> {
  const n: number = api.input().query.n === undefined ? 0 : Number(api.input().query.n);
  api.log('node module ran', { n });
  return { hello: 'from deno', n: n * 2 };
}`;

describe.each(cases)('npm run start:deno on %s', (_name, env) => {
  let s: DenoServer;
  beforeAll(async () => {
    s = await startDeno(env);
  }, 90_000);
  afterAll(async () => {
    if (s) await s.stop();
  });

  test('both origins are ready, and readiness says component Workers run on Deno with permissions none', async () => {
    for (const origin of [s.cp, s.runtime]) {
      const ready = await fetch(`${origin}/readyz`).then(reply);
      expect(ready.status).toBe(200);
      expect(ready.body.checks.database).toBe(true);
      expect(ready.body.checks.executor.isolation).toBe('process');
      expect(ready.body.checks.executor.workers).toEqual({ runtime: 'deno', permissions: 'none' });
      const missing = ready.body.checks.executor.degraded as string[];
      if (missing.length > 0) console.log(`[deno] sandbox layers not available on this machine: ${missing.join(', ')}`);
      expect(ready.body.checks.executor.layers.emptyEnv).toBe(true);
    }
    expect(s.log()).toMatch(/isolation=process/);
  });

  test('agents: create, get and a list query with a filter, sort and count', async () => {
    const name = `deno-${crypto.randomUUID().slice(0, 8)}`;
    const created = await s.api('POST', '/agents', { name, config: { model: 'scripted', maxTicks: 20 } });
    expect(created.status).toBe(201);
    expect((await s.api('GET', `/agents/${created.body.id}`)).body.name).toBe(name);
    const filter = encodeURIComponent(JSON.stringify({ field: 'name', op: 'eq', value: name }));
    const listed = await s.api('GET', `/agents?filter=${filter}&sort=-createdAt&fields=id,name&count=true`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([{ id: created.body.id, name }]);
    expect(listed.body.meta).toMatchObject({ count: 1, hasMore: false });
  });

  test('a run streams its events live (SSE) until it finishes', async () => {
    const agent = await s.api('POST', '/agents', { name: `sse-${crypto.randomUUID().slice(0, 8)}`, config: { model: 'scripted', maxTicks: 20 } });
    const run = await s.api('POST', `/agents/${agent.body.id}/runs`, { input: { script: [{ say: 'hello from deno' }, { sleep: 300 }, { finish: { answer: 42 } }] } });
    expect(run.status).toBe(201);
    const stream = await fetch(`${s.cp}/api/v1/agents/runs/${run.body.id}/events/stream`, { headers: { authorization: `Bearer ${ADMIN}` }, signal: AbortSignal.timeout(20_000) });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toStartWith('text/event-stream');
    const text = await stream.text();
    expect(text).toContain('hello from deno');
    expect(text).toMatch(/^data: /m);
  }, 30_000);

  test('a lowcode component behind an active Endpoint answers through the sandbox', async () => {
    const c = await s.api('POST', '/components', { name: `echo-${crypto.randomUUID().slice(0, 8)}`, kind: 'lowcode', elements: [{ name: 'v', code: 'return { id: input.params.id, deno: typeof Deno };' }] });
    expect(c.status).toBe(201);
    const path = `/deno-echo-${crypto.randomUUID().slice(0, 8)}`;
    const e = await s.api('POST', '/endpoints', { name: 'e', method: 'GET', path: `${path}/:id`, componentId: c.body.id, popResult: 'v' });
    expect(e.status).toBe(201);
    expect((await s.api('POST', `/endpoints/${e.body.id}/activate`)).status).toBe(200);
    const r = await s.invoke('GET', `${path}/7`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: '7', deno: 'object' });
  });

  test('a TypeScript node module is built in the sandbox, deployed, and runs', async () => {
    const c = await s.api('POST', '/components', { name: `ts-${crypto.randomUUID().slice(0, 8)}`, kind: 'node', source: NODE_MODULE });
    expect(c.status).toBe(201);
    const dep = await s.api('POST', `/components/${c.body.id}/deployments`, { revisionId: c.body.latestRevision.id });
    expect(dep.status).toBe(202);
    let status = dep.body.status;
    for (let i = 0; i < 200 && status === 'building'; i++) {
      await Bun.sleep(50);
      status = (await s.api('GET', `/components/${c.body.id}/deployments/${dep.body.id}`)).body.status;
    }
    expect(status).toBe('ready');
    expect((await s.api('POST', `/components/${c.body.id}/deployments/${dep.body.id}/activate`)).status).toBe(200);
    const path = `/deno-ts-${crypto.randomUUID().slice(0, 8)}`;
    const e = await s.api('POST', '/endpoints', { name: 'e', method: 'GET', path, componentId: c.body.id, popResult: 'default' });
    expect((await s.api('POST', `/endpoints/${e.body.id}/activate`)).status).toBe(200);
    const r = await s.invoke('GET', `${path}?n=21`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ hello: 'from deno', n: 42 });
  });

  test('component code can reach nothing: env, files, processes, ffi and the network are refused by Deno; ending its Worker or signalling is refused', async () => {
    const c = await s.api('POST', '/components', { name: `probe-${crypto.randomUUID().slice(0, 8)}`, kind: 'lowcode', elements: [{ name: 'r', code: PROBE }] });
    expect(c.status).toBe(201);
    const path = `/deno-probe-${crypto.randomUUID().slice(0, 8)}`;
    const e = await s.api('POST', '/endpoints', { name: 'e', method: 'GET', path, componentId: c.body.id, popResult: 'r', inputs: { target: `${s.cp}/healthz` }, timeoutMs: 10_000 });
    expect(e.status).toBe(201);
    expect((await s.api('POST', `/endpoints/${e.body.id}/activate`)).status).toBe(200);
    // Twice: the Worker outlives every attempt.
    for (let i = 0; i < 2; i++) {
      const r = await s.invoke('GET', path);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        env: 'NotCapable', processEnv: 'NotCapable', read: 'NotCapable', write: 'NotCapable', run: 'NotCapable', ffi: 'NotCapable', net: 'NotCapable', fetch: 'NotCapable',
        exit: 'refused', kill: 'refused', close: 'refused', processExit: 'refused', builtinModule: 'refused',
      });
    }
  });

  test('SIGTERM drains and stops the server (exit code 0)', async () => {
    expect(await s.stop()).toBe(0);
    expect(s.log()).toContain('shutting down');
  }, 30_000);
});
