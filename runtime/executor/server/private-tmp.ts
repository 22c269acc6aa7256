// Private temporary directories for executor hosts. Every host runs as the same unprivileged user,
// so any directory that user may write (/tmp, /var/tmp, /dev/shm, /run/lock, …) would let one
// workspace's code leave files for another's, and fill the server's disk. Inside the host's mount
// namespace, before the user is dropped, one small tmpfs is mounted on the first such directory and
// a fresh subdirectory of it bound onto each of the others: what a host writes there is its own,
// counted once against PRIVATE_TMP_MB, and gone with the host.
import { lstatSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { PRIVATE_TMP_MB } from '../contract/index.ts';

/** How deep below / the search looks (/var/lib/php/sessions is 4), and how many entries it reads at most. */
const SEARCH_DEPTH = 4;
const SEARCH_ENTRIES = 50_000;
/** Kernel file systems: nothing there is a place to leave files, and reading them is slow. */
const SKIPPED = new Set(['/proc', '/sys', '/dev/pts', '/dev/mqueue', '/dev/hugepages']);

/** The names in `dir`, or none when it cannot be read (gone, or not ours to read). */
export function entriesOf(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Where such directories usually are: always looked at, whatever the search's budget finds. */
const USUAL = ['/tmp', '/var/tmp', '/dev/shm', '/run/lock'];

/** Whether `path` is a directory (not a link to one) that anyone may write. */
function worldWritable(path: string): boolean {
  try {
    const st = lstatSync(path);
    return st.isDirectory() && (st.mode & 0o002) !== 0;
  } catch {
    return false;
  }
}

/**
 * Directories anyone may write, as found on this machine (symbolic links are not followed; their
 * targets are found themselves), without those inside another one found (hidden with it). /tmp
 * first. Below `/`, the usual places are always included: the search reads at most `budget`
 * entries (a large root could use it up before reaching them).
 */
export function worldWritableDirs(root = '/', budget = SEARCH_ENTRIES): string[] {
  const found: string[] = root === sep ? USUAL.filter(worldWritable) : [];
  const visit = (dir: string, depth: number): void => {
    for (const name of entriesOf(dir)) {
      if (--budget < 0) return;
      const path = join(dir, name);
      if (SKIPPED.has(path) || found.includes(path)) continue;
      let mode: number;
      try {
        const st = lstatSync(path);
        if (!st.isDirectory()) continue;
        mode = st.mode;
      } catch {
        continue;
      }
      if ((mode & 0o002) !== 0) found.push(path);
      else if (depth < SEARCH_DEPTH) visit(path, depth + 1);
    }
  };
  visit(root, 1);
  return found.sort((a, b) => (a === '/tmp' ? -1 : b === '/tmp' ? 1 : a.localeCompare(b)));
}

/** Whether `path` is one of `dirs` or lies below one. */
export function isUnder(path: string, dirs: readonly string[]): boolean {
  return dirs.some((d) => path === d || path.startsWith(d.endsWith(sep) ? d : d + sep));
}

const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * The shell program that masks `dirs` and then runs its arguments with an empty environment.
 * `keep` (a private copy of Bun, which may lie below a masked directory) is opened first and bound
 * back, read-only, at its path: --no-canonicalize keeps mount from resolving the descriptor's link
 * to the path, which by then names the new, empty directory.
 */
export function maskScript(dirs: readonly string[], keep: string): string {
  const lines = ['set -e', `keep=${quote(keep)}`, 'if [ -n "$keep" ]; then exec 9<"$keep"; fi'];
  const [first, ...rest] = dirs;
  if (first !== undefined) {
    lines.push(`mount -t tmpfs -o size=${PRIVATE_TMP_MB}m,mode=1777,nosuid,nodev tmpfs ${quote(first)}`);
    rest.forEach((dir, i) => {
      const shared = quote(`${first}/.host-${i + 1}`);
      lines.push(`mkdir -m 1777 ${shared}`, `mount --bind ${shared} ${quote(dir)}`);
    });
  }
  lines.push(
    'if [ -n "$keep" ]; then',
    '  mkdir -p "$keep"',
    '  mount --no-canonicalize --bind /proc/self/fd/9 "$keep"',
    '  mount -o remount,bind,ro "$keep"',
    '  exec 9<&-',
    'fi',
    // The shell exported variables of its own (PWD): the host gets none.
    'exec env -i "$@"',
  );
  return lines.join('\n');
}
