// Works out how executor hosts are confined on this machine: probes each layer (namespaces,
// private temporary directories, address-space limit, unprivileged user with no_new_privs) with a
// trivial command and builds the host command line from the layers that work. When the
// unprivileged user cannot read the Bun binary or the host program, both are placed in a private
// 0755 directory first.
import {
  chmodSync,
  copyFileSync,
  cpSync,
  linkSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { HOST_ALLOCATOR_VARIABLE, HOST_FILES_LIMIT, HOST_TASKS_SHARE, hostAddressSpaceMb } from '../contract/index.ts';
import { entriesOf, isUnder, maskScript, worldWritableDirs } from './private-tmp.ts';
import { processAlive } from '../../../src/core/lib/index.ts';
import { platform } from '../../../src/core/platform/index.ts';

const UNPRIVILEGED_ID = 65534;

/**
 * Address space Deno reserves at start whatever it then uses (the cage of V8's C++ heap, Oilpan:
 * 32 GiB, never backed by memory, aligned, so the reservation may briefly take twice that): under
 * a lower limit it aborts at once ("CagedHeap reservation"; 33 GiB of headroom failed about one
 * start in twenty). A Deno host's limit is this plus what a Bun host gets, so the memory it can
 * really use is bounded the same.
 */
const DENO_RESERVED_MB = 65 * 1024;

/** Threads all hosts together may run: a share of the machine's pid space. */
function hostTasksLimit(): number {
  let pidMax = 32_768;
  try {
    pidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim()) || pidMax;
  } catch {
    // not Linux, or no /proc: the kernel's default
  }
  return Math.max(512, Math.floor(pidMax * HOST_TASKS_SHARE));
}

/** Found once per process: the file system's layout does not change under a running server. */
let maskedDirs: string[] | undefined;

export interface SandboxPlan {
  argv: string[];
  /** The world-writable directories each host gets a private tmpfs on (empty without the layer). */
  masked: string[];
  /** Layers left out and why, for the start-up log. */
  missing: string[];
  /** Removes the private copy, if one was made. */
  cleanup(): void;
}

const EXECUTOR_DIR = dirname(import.meta.dirname);
const HOST_MAIN = join(EXECUTOR_DIR, 'host', 'host-main.ts');
const HOST_FILES = [HOST_MAIN, join(EXECUTOR_DIR, 'host', 'syscall-filter.ts'), join(EXECUTOR_DIR, 'worker', 'component-worker.ts'), join(EXECUTOR_DIR, 'contract', 'limits.ts')];

function runs(argv: string[]): boolean {
  try {
    return platform.exitCodeOf(argv) === 0;
  } catch {
    return false;
  }
}

/**
 * `NAME=value` for the allocator setting a host starts with: the server's own, when it is a plain
 * number (HOST_ALLOCATOR_VARIABLE); nothing else of the server's environment ever reaches a host.
 */
export function hostAllocatorSetting(source: Record<string, string | undefined> = process.env): string[] {
  const value = source[HOST_ALLOCATOR_VARIABLE];
  return value !== undefined && /^-?\d{1,9}$/.test(value) ? [`${HOST_ALLOCATOR_VARIABLE}=${value}`] : [];
}

export function planSandbox(options: { memoryMb: number; privateCopy: boolean; syscallFilter: boolean }): SandboxPlan {
  const missing: string[] = [];
  const trueBin = platform.which('true') ?? '/bin/true';
  const isRoot = process.getuid?.() === 0;

  const unshare = platform.which('unshare');
  const nsArgs = [
    ...(isRoot ? [] : ['--user', `--map-user=${UNPRIVILEGED_ID}`, `--map-group=${UNPRIVILEGED_ID}`]),
    '--net',
    '--pid',
    // SysV IPC and POSIX message queues: another namespace would share its segments with every host.
    '--ipc',
    '--fork',
    '--kill-child',
    '--mount-proc',
  ];
  const namespaces = unshare !== null && runs([unshare, ...nsArgs, '--', trueBin]);
  if (!namespaces) missing.push(unshare ? 'pid/network namespaces: unshare is not permitted here' : 'pid/network namespaces: unshare not found');

  const prlimit = platform.which('prlimit');
  const limitArgs = [
    `--as=${(hostAddressSpaceMb(options.memoryMb) + (platform.name === 'deno' ? DENO_RESERVED_MB : 0)) * 1024 * 1024}`,
    `--nofile=${HOST_FILES_LIMIT}`,
    // No core dumps: hosts crash by design (a memory bomb), and a core would hold a tenant's data
    // wherever the system's core handler keeps them.
    '--core=0',
    // Counted per uid: all hosts together (as root they share uid 65534; in a user namespace the
    // count would include the server's own threads, so it is left out there).
    ...(isRoot ? [`--nproc=${hostTasksLimit()}`] : []),
  ];
  const limit = prlimit !== null && runs([prlimit, ...limitArgs, '--', trueBin]);
  if (!limit) missing.push('address-space limit: prlimit not found or not permitted');

  const setpriv = platform.which('setpriv');
  // As root: drop to nobody. Otherwise the user namespace above already maps us to nobody.
  const privArgs = [
    ...(isRoot ? [`--reuid=${UNPRIVILEGED_ID}`, `--regid=${UNPRIVILEGED_ID}`, '--clear-groups'] : []),
    '--nnp',
    '--pdeathsig',
    'KILL',
  ];
  const priv = setpriv !== null && runs([setpriv, ...privArgs, '--', trueBin]);
  if (!priv) missing.push('unprivileged user / no_new_privs: setpriv not found or not permitted');

  // Private temporary directories (private-tmp.ts): mounted by a shell inside the new mount
  // namespace, as root, before the user is dropped (an unprivileged user namespace loses its
  // capabilities at exec).
  const sh = platform.which('sh');
  const masked = (maskedDirs ??= worldWritableDirs());
  let tmpfs = namespaces && isRoot && sh !== null && platform.which('mount') !== null && platform.which('env') !== null;
  const test = platform.which('test');

  let bun = process.execPath;
  let hostMain = HOST_MAIN;
  let cleanup = (): void => {};
  const readable =
    !isRoot ||
    !priv ||
    (test !== null &&
      runs([setpriv!, ...privArgs, '--', test, '-x', bun, ...HOST_FILES.flatMap((f) => ['-a', '-r', f])]) &&
      runs([setpriv!, ...privArgs, '--', bun, '--version']));
  // Bun or the host program below a masked directory would vanish: a private copy is bound back.
  const hidden = tmpfs && (isUnder(realpathSync(bun), masked) || isUnder(realpathSync(EXECUTOR_DIR), masked));
  // Copies left by servers that died without closing (~100 MB each) go at every start, copy or not.
  removeOrphanedCopies(tmpdir());
  if (options.privateCopy || !readable || hidden) {
    const copy = makePrivateCopy();
    // Hosts must reach it: below a directory they get a private tmpfs on, it is bound back for
    // them; elsewhere every directory above it must let them through.
    const boundBack = tmpfs && isUnder(realpathSync(copy.bun), masked);
    if (isRoot && priv && test !== null && !boundBack && !runs([setpriv!, ...privArgs, '--', test, '-x', copy.bun])) {
      copy.cleanup();
      throw new Error(`executor hosts run as uid ${UNPRIVILEGED_ID}, which cannot reach the private copy of Bun made in TMPDIR (${tmpdir()}): set TMPDIR to a directory every user may pass through (such as /tmp)`);
    }
    bun = copy.bun;
    hostMain = copy.hostMain;
    cleanup = copy.cleanup;
  }

  const keep = bun === process.execPath ? '' : dirname(bun);
  const prefix = (withTmpfs: boolean): string[] => [
    ...(namespaces ? [unshare!, ...nsArgs, '--'] : []),
    ...(withTmpfs ? [sh!, '-c', maskScript(masked, keep), 'executor-host'] : []),
    ...(limit ? [prlimit!, ...limitArgs, '--'] : []),
    ...(priv ? [setpriv!, ...privArgs, '--'] : []),
  ];
  // The whole chain, as the host will run it: Bun and the host program still there to the host's user.
  if (tmpfs && !(test !== null && runs([...prefix(true), test, '-x', bun, '-a', '-r', hostMain]))) tmpfs = false;
  if (!tmpfs) missing.push('private /tmp: needs root, a mount namespace, sh, env and mount');
  const allocator = hostAllocatorSetting();
  const envBin = platform.which('env');
  // A session (and process group) of its own: hosts share a uid, and kill(0, …) from component
  // code reaches every process of the caller's group, namespaces or not; in the server's group that
  // was every other host. (setsid calls setsid() and execs in place: the host is no group leader.)
  const setsid = platform.which('setsid');
  if (!setsid) missing.push('own session per host: setsid not found (kill(0) from one host reaches the others)');
  const argv = [
    ...prefix(tmpfs),
    // Every step above starts from an empty environment; the host gets the allocator setting only.
    ...(allocator.length > 0 && envBin !== null ? [envBin, '-i', ...allocator] : []),
    ...(setsid ? [setsid] : []),
    ...hostCommand(bun, hostMain),
    ...(options.syscallFilter ? [] : ['--no-syscall-filter']),
  ];
  return { argv, missing, masked: tmpfs ? masked : [], cleanup };
}

/**
 * The runtime running the host program. Bun: --no-install, never fetch packages for a component's
 * imports. Deno: the host itself may do all (read /proc for its self-report, call libc for its
 * syscall filter), its component Workers nothing (deno: { permissions: 'none' }, the
 * --unstable-worker-options); no config file, lock file, npm or remote module is ever looked at.
 */
function hostCommand(runtime: string, hostMain: string): string[] {
  if (platform.name === 'bun') return [runtime, '--no-install', hostMain];
  return [runtime, 'run', '--allow-all', '--unstable-worker-options', '--no-config', '--no-lock', '--no-npm', '--no-remote', '--quiet', hostMain];
}

const COPY_PREFIX = 'bun-executor-';

/**
 * Copies (or hard-links) Bun and the executor's sources into a fresh root-owned 0755 directory,
 * named after this process.
 */
function makePrivateCopy(): { bun: string; hostMain: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), `${COPY_PREFIX}${process.pid}-`));
  chmodSync(dir, 0o755);
  const bun = join(dir, 'bun');
  const bunMode = statSync(process.execPath).mode;
  try {
    // A hard link shares the inode, so it only helps when the binary itself is world-executable.
    if ((bunMode & 0o005) !== 0o005) throw new Error('binary not world-readable');
    linkSync(process.execPath, bun);
  } catch {
    copyFileSync(process.execPath, bun);
    chmodSync(bun, 0o755);
  }
  const target = join(dir, 'executor');
  cpSync(EXECUTOR_DIR, target, { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
  chmodTree(target);
  return {
    bun,
    hostMain: join(target, relative(EXECUTOR_DIR, HOST_MAIN)),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Removes `bun-executor-<pid>-*` directories of this user whose process is gone (a live pid,
 * reused or not, is left alone; so is another user's copy, which may be a server in another PID
 * namespace sharing this directory).
 */
export function removeOrphanedCopies(dir: string): void {
  const uid = process.getuid?.();
  for (const name of entriesOf(dir)) {
    const owner = /^bun-executor-(\d+)-/.exec(name);
    if (!owner || processAlive(Number(owner[1]))) continue;
    try {
      if (uid !== undefined && lstatSync(join(dir, name)).uid !== uid) continue;
      rmSync(join(dir, name), { recursive: true, force: true });
    } catch {
      // already gone
    }
  }
}

function chmodTree(path: string): void {
  const st = statSync(path);
  if (st.isDirectory()) {
    chmodSync(path, 0o755);
    for (const name of readdirSync(path)) chmodTree(join(path, name));
  } else {
    chmodSync(path, 0o644);
  }
}
