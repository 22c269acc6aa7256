// Server processes for durability tests: `src/main.ts` (all, or control-plane alone) as a child
// process on a database the test chooses, so that another process can be started on the same
// database after this one is killed or stopped. Unlike test/blackbox/server.ts, stopping a
// process leaves its data directory and database where they are.
import { join } from 'node:path';
import { collect } from '../helpers/child-output.ts';
import postgres from 'postgres';
import { ADMIN } from '../blackbox/server.ts';
import { POSTGRES_URL } from '../helpers/databases.ts';

const ROOT = join(import.meta.dir, '..', '..');

interface Reply {
  status: number;
  body: any;
}

export interface PlatformProcess {
  /** Control-plane origin. */
  cp: string;
  pid: number;
  log(): string;
  /** A control-plane call (path under /api/v1) as `key` (default: the bootstrap admin). */
  api(method: string, path: string, body?: unknown, key?: string): Promise<Reply>;
  /** Opens the SSE stream of a run's events with these extra headers. */
  stream(runId: string, headers?: Record<string, string>, signal?: AbortSignal): Promise<Response>;
  /** Sends a signal and returns at once (SIGSTOP freezes the process where it is). */
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void;
  /** Sends `signal` and waits for the process to exit; its exit code (null when killed by a signal). */
  kill(signal: 'SIGKILL' | 'SIGTERM'): Promise<number | null>;
}

/**
 * Starts `bun src/main.ts <role>` with only the variables given (plus PATH, ports 0, the admin key
 * and worker isolation) and waits until the control plane listens.
 */
export async function startPlatformProcess(role: 'all' | 'control-plane', env: Record<string, string>): Promise<PlatformProcess> {
  let output = '';
  const child = Bun.spawn([process.execPath, '--max-http-header-size=131072', 'src/main.ts', role], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PORT: '0', RUNTIME_PORT: '0', PLATFORM_ADMIN_API_KEY: ADMIN, COMPONENT_ISOLATION: 'worker', LOG_LEVEL: 'info', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const killHard = () => child.kill('SIGKILL');
  process.once('exit', killHard);
  let announce: (origin: string) => void = () => {};
  const listening = new Promise<string>((resolve) => (announce = resolve));
  const sink = (text: string) => {
    output += text;
    const port = /control plane listening on https?:\/\/[^\s:]+:(\d+)/.exec(output)?.[1];
    if (port) announce(`http://127.0.0.1:${port}`);
  };
  void collect(child.stdout, sink);
  void collect(child.stderr, sink);
  const exited = child.exited.then(() => {
    throw new Error(`${role} exited with ${child.exitCode ?? child.signalCode}:\n${output}`);
  });
  exited.catch(() => {});
  let cp: string;
  try {
    cp = await Promise.race([listening, exited, Bun.sleep(45_000).then(() => Promise.reject(new Error(`${role} did not listen within 45 s:\n${output}`)))]);
  } catch (error) {
    child.kill('SIGKILL');
    process.off('exit', killHard);
    throw error;
  }
  return {
    cp,
    pid: child.pid,
    log: () => output,
    async api(method, path, body, key = ADMIN) {
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${cp}/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(20_000) });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    stream(runId, headers = {}, signal) {
      return fetch(`${cp}/api/v1/agents/runs/${runId}/events/stream`, { headers: { authorization: `Bearer ${ADMIN}`, ...headers }, ...(signal ? { signal } : {}) });
    },
    signal(signal) {
      child.kill(signal);
    },
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const code = await Promise.race([child.exited, Bun.sleep(15_000).then(() => 'timeout' as const)]);
      process.off('exit', killHard);
      if (code === 'timeout') {
        child.kill('SIGKILL');
        await child.exited;
        throw new Error(`the process did not exit within 15 s of ${signal}:\n${output}`);
      }
      return child.signalCode ? null : child.exitCode;
    },
  };
}

/**
 * A Postgres database of its own for a test (processes started on it use the default schema, as
 * in production; a schema cannot be given to `src/main.ts`), with a client on it for looking into
 * its tables.
 */
export async function freshDatabase(): Promise<{ url: string; sql: postgres.Sql; drop(): Promise<void> }> {
  const name = `runs_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const admin = postgres(POSTGRES_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  const sql = postgres(url.toString(), { max: 2, onnotice: () => {} });
  return {
    url: url.toString(),
    sql,
    async drop() {
      await sql.end({ timeout: 1 });
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end({ timeout: 1 });
    },
  };
}

/** The run once `done` holds for it (polled every 50 ms; throws naming its status past `ms`). */
export async function runUntil(p: PlatformProcess, runId: string, done: (run: Record<string, any>) => boolean, ms = 20_000): Promise<Record<string, any>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await p.api('GET', `/agents/runs/${runId}`);
    if (r.status === 200 && done(r.body)) return r.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} is ${r.body?.status} after ${ms} ms`);
    await Bun.sleep(50);
  }
}
