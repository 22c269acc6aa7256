// Works out how executor hosts are confined on this machine: probes each layer (namespaces,
// private temporary directories, address-space limit, unprivileged user with no_new_privs) with a
// trivial command and builds the host command line from the layers that work. When the
// unprivileged user cannot read the Bun binary or the host program, both are placed in a private
// 0755 directory first.
import { chmodSync, copyFileSync, cpSync, linkSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { JIT_HEADROOM_MB, PRIVATE_TMP_MB } from '../limits.ts';

export const UNPRIVILEGED_ID = 65534;

export interface SandboxPlan {
  argv: string[];
  /** Layers left out and why, for the start-up log. */
  missing: string[];
  /** Removes the private copy, if one was made. */
  cleanup(): void;
}

const EXECUTOR_DIR = dirname(import.meta.dir);
const HOST_MAIN = join(EXECUTOR_DIR, 'host', 'host-main.ts');
const HOST_FILES = [HOST_MAIN, join(EXECUTOR_DIR, 'host', 'syscall-filter.ts'), join(EXECUTOR_DIR, 'worker', 'component-worker.ts'), join(EXECUTOR_DIR, 'limits.ts')];

function runs(argv: string[]): boolean {
  try {
    return Bun.spawnSync(argv, { env: {}, stdio: ['ignore', 'ignore', 'ignore'] }).exitCode === 0;
  } catch {
    return false;
  }
}

export function planSandbox(options: { memoryMb: number; privateCopy: boolean; syscallFilter: boolean }): SandboxPlan {
  const missing: string[] = [];
  const trueBin = Bun.which('true') ?? '/bin/true';
  const isRoot = process.getuid?.() === 0;

  const unshare = Bun.which('unshare');
  const nsArgs = [
    ...(isRoot ? [] : ['--user', `--map-user=${UNPRIVILEGED_ID}`, `--map-group=${UNPRIVILEGED_ID}`]),
    '--net',
    '--pid',
    '--fork',
    '--kill-child',
    '--mount-proc',
  ];
  const namespaces = unshare !== null && runs([unshare, ...nsArgs, '--', trueBin]);
  if (!namespaces) missing.push(unshare ? 'pid/network namespaces: unshare is not permitted here' : 'pid/network namespaces: unshare not found');

  const prlimit = Bun.which('prlimit');
  const asArg = `--as=${(options.memoryMb + JIT_HEADROOM_MB) * 1024 * 1024}`;
  const limit = prlimit !== null && runs([prlimit, asArg, '--', trueBin]);
  if (!limit) missing.push('address-space limit: prlimit not found or not permitted');

  const setpriv = Bun.which('setpriv');
  // As root: drop to nobody. Otherwise the user namespace above already maps us to nobody.
  const privArgs = [
    ...(isRoot ? [`--reuid=${UNPRIVILEGED_ID}`, `--regid=${UNPRIVILEGED_ID}`, '--clear-groups'] : []),
    '--nnp',
    '--pdeathsig',
    'KILL',
  ];
  const priv = setpriv !== null && runs([setpriv, ...privArgs, '--', trueBin]);
  if (!priv) missing.push('unprivileged user / no_new_privs: setpriv not found or not permitted');

  // Private temporary directories: mounted by a shell inside the new mount namespace, as root, before
  // the user is dropped (an unprivileged user namespace loses its capabilities at exec).
  const sh = Bun.which('sh');
  const mount = Bun.which('mount');
  const tmpfs = namespaces && isRoot && sh !== null && mount !== null && Bun.which('env') !== null && runs([unshare!, ...nsArgs, '--', sh, '-c', privateTmpScript(''), 'executor-host', trueBin]);
  if (!tmpfs) missing.push('private /tmp: needs root, a mount namespace, sh, env and mount');

  let bun = process.execPath;
  let hostMain = HOST_MAIN;
  let cleanup = (): void => {};
  const test = Bun.which('test');
  const readable =
    !isRoot ||
    !priv ||
    (test !== null &&
      runs([setpriv!, ...privArgs, '--', test, '-x', bun, ...HOST_FILES.flatMap((f) => ['-a', '-r', f])]) &&
      runs([setpriv!, ...privArgs, '--', bun, '--version']));
  if (options.privateCopy || !readable) {
    const copy = makePrivateCopy();
    bun = copy.bun;
    hostMain = copy.hostMain;
    cleanup = copy.cleanup;
  }

  const keep = bun === process.execPath ? '' : dirname(bun);
  const argv = [
    ...(namespaces ? [unshare!, ...nsArgs, '--'] : []),
    ...(tmpfs ? [sh!, '-c', privateTmpScript(keep), 'executor-host'] : []),
    ...(limit ? [prlimit!, asArg, '--'] : []),
    ...(priv ? [setpriv!, ...privArgs, '--'] : []),
    // --no-install: never try to fetch packages for a component's imports.
    bun,
    '--no-install',
    hostMain,
    ...(options.syscallFilter ? [] : ['--no-syscall-filter']),
  ];
  return { argv, missing, cleanup };
}

/**
 * Mounts a small tmpfs on each world-writable temporary directory, then runs the rest of the command
 * line. `keep` (the private copy of Bun, itself under /tmp) is opened first and bound back, read-only,
 * at its path inside the new /tmp: --no-canonicalize keeps mount from resolving the descriptor's
 * link to the now hidden path.
 */
function privateTmpScript(keep: string): string {
  const quoted = `'${keep.replaceAll("'", "'\\''")}'`;
  return [
    'set -e',
    `keep=${quoted}`,
    'if [ -n "$keep" ]; then exec 9<"$keep"; fi',
    'for d in /tmp /var/tmp /dev/shm; do',
    `  if [ -d "$d" ] && [ ! -L "$d" ]; then mount -t tmpfs -o size=${PRIVATE_TMP_MB}m,mode=1777,nosuid,nodev tmpfs "$d"; fi`,
    'done',
    'if [ -n "$keep" ]; then',
    '  mkdir -p "$keep"',
    '  mount --no-canonicalize --bind /proc/self/fd/9 "$keep"',
    '  mount -o remount,bind,ro "$keep"',
    '  exec 9<&-',
    'fi',
    // The shell exported variables of its own (PWD): the host gets none.
    'exec env -i "$@"',
  ].join('\n');
}

/** Copies (or hard-links) Bun and the executor's sources into a fresh root-owned 0755 directory. */
function makePrivateCopy(): { bun: string; hostMain: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'bun-executor-'));
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

function chmodTree(path: string): void {
  const st = statSync(path);
  if (st.isDirectory()) {
    chmodSync(path, 0o755);
    for (const name of new Bun.Glob('*').scanSync({ cwd: path, onlyFiles: false, dot: true })) chmodTree(join(path, name));
  } else {
    chmodSync(path, 0o644);
  }
}
