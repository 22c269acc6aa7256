// `npm run cluster` (DESIGN §12): control planes and endpoint runtimes as separate server processes
// on one Postgres database and one Redis, on consecutive loopback ports, each logging to a file of
// its own, until SIGTERM, SIGINT or SIGHUP stops them all. README "Cluster" documents the layout.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../src/core/index.ts';
import { jwtSecret, secretsKey } from '../src/bootstrap.ts';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
/** What the start scripts and the Dockerfile give Bun (README, request heads). */
const BUN_FLAGS = ['--max-http-header-size=131072'];
/** How long a stopping process may drain before it is killed. */
const STOP_GRACE_MS = 30_000;
/** A /readyz call that takes longer than this counts as not ready yet. */
const PROBE_TIMEOUT_MS = 2_000;

type Role = 'control-plane' | 'runtime';

interface Member {
  name: string;
  role: Role;
  port: number;
  url: string;
  env: Record<string, string>;
  logFile: string;
  /** The log file, opened for appending, until the process has it. */
  logFd?: number;
  /** Where this start's output begins in the log file (it is appended to). */
  logOffset: number;
  child?: ChildProcess;
  /** Set once the process has exited: its exit code, or the signal that ended it. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };
}

interface Settings {
  controlPlanes: number;
  runtimes: number;
  firstPort: number;
  readyTimeoutMs: number;
}

/** The cluster's own variables and the two it cannot run without; every problem, not just the first. */
function readSettings(env: NodeJS.ProcessEnv): Settings | string[] {
  const problems: string[] = [];
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!(value >= min && value <= max)) problems.push(`${name}: must be an integer from ${min} to ${max} (got "${raw}")`);
    return value;
  };
  const controlPlanes = integer('CLUSTER_CONTROL_PLANES', 1, 1, 64);
  const runtimes = integer('CLUSTER_RUNTIMES', 2, 1, 64);
  const firstPort = integer('CLUSTER_PORT', 8080, 1, 65535);
  const readyTimeoutMs = integer('CLUSTER_READY_TIMEOUT_MS', 60_000, 1, 3_600_000);
  if (problems.length === 0 && firstPort + controlPlanes + runtimes - 1 > 65535) {
    problems.push(`CLUSTER_PORT: ${controlPlanes + runtimes} ports from ${firstPort} go past 65535`);
  }
  const database = env.DATABASE_URL ?? '';
  if (!/^postgres(ql)?:\/\//.test(database)) {
    // Only the scheme: the URL may carry a password.
    const given = database === '' ? 'it is unset (the default is a SQLite file)' : `not ${database.split(':')[0]}:`;
    problems.push(`DATABASE_URL: must be a Postgres URL (postgres://user@host:port/database), which every process of the cluster shares; ${given}`);
  }
  if (!env.REDIS_URL) problems.push('REDIS_URL: must be set (redis://host:port): runtimes learn of every change through it');
  return problems.length > 0 ? problems : { controlPlanes, runtimes, firstPort, readyTimeoutMs };
}

/**
 * Every process with its port, origins and environment. Control planes take the first ports,
 * runtimes the ones after them. BASE_URL and ENDPOINT_RUNTIME_URL, when given (a load balancer's
 * public origins), are passed through to every process; unset, each process is told its own
 * origin, a control plane names runtime-1 as the runtime origin, and runtime j calls the control
 * planes in turn (j mod the number of control planes).
 */
function plan(settings: Settings, env: NodeJS.ProcessEnv, shared: Record<string, string>, logDir: string): Member[] {
  const url = (port: number) => `http://127.0.0.1:${port}`;
  const cpPorts = Array.from({ length: settings.controlPlanes }, (_, i) => settings.firstPort + i);
  const rtPorts = Array.from({ length: settings.runtimes }, (_, i) => settings.firstPort + settings.controlPlanes + i);
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) base[key] = value;
  Object.assign(base, { MIMALLOC_PURGE_DELAY: env.MIMALLOC_PURGE_DELAY || '-1' }, shared);
  const member = (role: Role, index: number, port: number, own: Record<string, string>): Member => {
    const name = `${role}-${index + 1}`;
    return { name, role, port, url: url(port), env: { ...base, ...own }, logFile: join(logDir, `${name}.log`), logOffset: 0 };
  };
  return [
    ...cpPorts.map((port, i) =>
      member('control-plane', i, port, { PORT: String(port), RUNTIME_PORT: String(rtPorts[0]), BASE_URL: env.BASE_URL || url(port), ENDPOINT_RUNTIME_URL: env.ENDPOINT_RUNTIME_URL || url(rtPorts[0]!) }),
    ),
    ...rtPorts.map((port, j) => {
      const controlPlane = cpPorts[j % cpPorts.length]!;
      return member('runtime', j, port, { RUNTIME_PORT: String(port), PORT: String(controlPlane), BASE_URL: env.BASE_URL || url(controlPlane), ENDPOINT_RUNTIME_URL: env.ENDPOINT_RUNTIME_URL || url(port) });
    }),
  ];
}

const say = (line: string) => process.stderr.write(`cluster: ${line}\n`);

function describeExit(exit: NonNullable<Member['exit']>): string {
  return exit.code !== null ? `exit code ${exit.code}` : `signal ${exit.signal}`;
}

/** The last lines this start wrote to a member's log, with anything shaped like an API key masked. */
function logTail(member: Member, lines = 15): string {
  try {
    const text = readFileSync(member.logFile).subarray(member.logOffset).toString('utf8').replace(/\bsk-\S{8,}/g, 'sk-…');
    return text.trimEnd().split('\n').slice(-lines).map((line) => `  | ${line}`).join('\n');
  } catch {
    return '';
  }
}

function fail(message: string): never {
  for (const line of message.split('\n')) say(line);
  process.exit(2);
}

// --- configuration: everything is checked before a process starts ---------------------------

const settings = readSettings(process.env);
if (Array.isArray(settings)) fail(`cannot start the cluster:\n  ${settings.join('\n  ')}`);

let members: Member[];
try {
  // The servers' own validation, on the ports they will get, so a bad value stops nothing half-started.
  const firstRuntimePort = settings.firstPort + settings.controlPlanes;
  const config = loadConfig({ ...process.env, PORT: String(settings.firstPort), RUNTIME_PORT: String(firstRuntimePort) });
  // Every process must sign and verify platform tokens with one secret, and every control plane
  // seal secrets with one key. Unset, they are the ones generated once into DATA_DIR (what
  // `npm start` on the same DATA_DIR uses, and kept across restarts), handed to each process in
  // its environment: readable only by this user, as the files are.
  const shared = { JWT_SECRET: jwtSecret(config), SECRETS_KEY: secretsKey(config) };
  const logDir = resolve(process.env.CLUSTER_LOG_DIR || join(config.DATA_DIR, 'logs'));
  mkdirSync(logDir, { recursive: true, mode: 0o700 });
  members = plan(settings, process.env, shared, logDir);
  // Every log file opened before any process starts: one that cannot be written stops nothing half-started.
  for (const member of members) {
    member.logFd = openSync(member.logFile, 'a', 0o600);
    member.logOffset = fstatSync(member.logFd).size;
  }
} catch (error) {
  if (error instanceof ConfigError) fail(error.message);
  fail(`cannot prepare the cluster: ${error instanceof Error ? error.message : String(error)}`);
}

let phase: 'starting' | 'running' | 'stopping' = 'starting';
let stopped: Promise<never> | undefined;

const running = () => members.filter((m) => m.child && !m.exit);

/** SIGTERM to every process still running, SIGKILL after the grace, then exit with `code`. */
function stopAll(code: number, reason: string): Promise<never> {
  if (stopped) return stopped;
  phase = 'stopping';
  const stopping = running();
  say(`${reason}: stopping ${stopping.map((m) => m.name).join(', ') || 'nothing (no process is running)'}`);
  stopped = (async () => {
    for (const m of stopping) m.child!.kill('SIGTERM');
    const deadline = Date.now() + STOP_GRACE_MS;
    while (running().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    let exitCode = code;
    for (const m of running()) {
      say(`${m.name} (pid ${m.child!.pid}) did not stop within ${STOP_GRACE_MS / 1000} s: killed (log: ${m.logFile})`);
      m.child!.kill('SIGKILL');
      exitCode = exitCode || 1;
    }
    while (running().length > 0) await new Promise((r) => setTimeout(r, 50));
    // A process stopped before its signal handlers were in place ends by the signal itself (a
    // terminal's Ctrl-C reaches the whole process group: SIGINT); one killed was reported above.
    const unclean = stopping.filter((m) => m.exit!.code !== 0 && !['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGKILL'].includes(m.exit!.signal ?? ''));
    for (const m of unclean) say(`${m.name} stopped with ${describeExit(m.exit!)} (log: ${m.logFile})`);
    if (unclean.length > 0) exitCode = exitCode || 1;
    if (exitCode === 0) say('every process has stopped');
    process.exit(exitCode);
  })();
  return stopped;
}

// SIGHUP too: a closed terminal drains the cluster rather than killing it outright.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (phase === 'stopping') return say(`${signal} again: still waiting for the processes to drain`);
    void stopAll(0, `${signal} received`);
  });
}

function onExit(member: Member, code: number | null, signal: NodeJS.Signals | null): void {
  member.exit = { code, signal };
  if (phase === 'stopping') return;
  const what = `${member.name} (pid ${member.child!.pid}) exited with ${describeExit(member.exit)}`;
  if (phase === 'starting') {
    say(`${what} before it was ready; its log: ${member.logFile}\n${logTail(member)}`);
    void stopAll(code && code > 0 ? code : 1, 'the cluster did not start');
    return;
  }
  // A running cluster keeps serving on the others (that is what several of each are for), so a
  // crash or a kill of one process is reported, not turned into an outage; the script ends when
  // the last one has gone, or on SIGTERM/SIGINT.
  say(`${what}; its log: ${member.logFile}; ${running().length} processes keep running`);
  if (running().length === 0) void stopAll(1, 'every process has exited');
}

// --- start --------------------------------------------------------------------------------------

for (const member of members) {
  const fd = member.logFd!;
  say(`starting ${member.name} on ${member.url} (log: ${member.logFile})`);
  // The server itself, not a shell or npm: its pid is the one reported, and it gets the signals.
  const child = spawn(process.execPath, [...BUN_FLAGS, MAIN, member.role], { cwd: process.cwd(), env: member.env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  member.child = child;
  child.on('exit', (code, signal) => onExit(member, code, signal));
  child.on('error', (error) => {
    say(`${member.name} could not be started: ${error.message}`);
    if (!member.exit) onExit(member, 127, null);
  });
}

/** Polls `/readyz` until it answers 200; false when the deadline passes first. */
async function ready(member: Member, deadline: number): Promise<{ ok: boolean; last: string }> {
  let last = 'no answer yet';
  while (Date.now() < deadline && phase === 'starting') {
    try {
      const response = await fetch(`${member.url}/readyz`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
      await response.arrayBuffer();
      if (response.status === 200) return { ok: true, last: '200' };
      last = `status ${response.status}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { ok: false, last };
}

const deadline = Date.now() + settings.readyTimeoutMs;
const answers = await Promise.all(members.map((m) => ready(m, deadline)));
if (phase !== 'starting') await stopped; // a process exited, or a signal came, while waiting
const late = members.filter((_, i) => !answers[i]!.ok);
if (late.length > 0) {
  for (const m of late) {
    const last = answers[members.indexOf(m)]!.last;
    say(`${m.name} did not answer ${m.url}/readyz with 200 within ${settings.readyTimeoutMs} ms (last: ${last}); its log: ${m.logFile}\n${logTail(m)}`);
  }
  await stopAll(1, 'the cluster did not become ready');
}
phase = 'running';

// Without PLATFORM_ADMIN_API_KEY, the control plane that created a new instance's administrator
// printed its key once on its stdout, which is its log: say where, never the key.
if (!process.env.PLATFORM_ADMIN_API_KEY) {
  for (const m of members.filter((m) => m.role === 'control-plane')) {
    const text = readFileSync(m.logFile).subarray(m.logOffset).toString('utf8');
    if (text.includes('Bootstrap INSTANCE_ADMIN API key')) say(`${m.name} generated the bootstrap INSTANCE_ADMIN API key; it is printed once in ${m.logFile} (store it: it is not shown again)`);
  }
}

const urls = (role: Role) => members.filter((m) => m.role === role).map((m) => m.url);
const pids = Object.fromEntries(members.map((m) => [m.name, m.child!.pid]));
process.stdout.write(`CLUSTER ${JSON.stringify({ controlPlanes: urls('control-plane'), runtimes: urls('runtime'), pids })}\n`);
