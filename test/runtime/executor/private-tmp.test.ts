// The search for directories anyone may write (runtime/executor/server/private-tmp.ts), on a tree
// built for the test: found at any depth up to the limit, nothing below a found one, links not
// followed, /tmp first; and the path test the sandbox uses to see its own code hidden.
import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, lstatSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { isUnder, maskScript, worldWritableDirs } from '../../../runtime/executor/server/private-tmp.ts';
import { tempDir } from '../../helpers/temp.ts';

const root = tempDir('writable');
afterAll(() => rmSync(root, { recursive: true, force: true }));

function dir(path: string, mode = 0o755): string {
  const full = join(root, path);
  mkdirSync(full, { recursive: true });
  chmodSync(full, mode);
  return full;
}

describe('worldWritableDirs', () => {
  test('finds writable directories to depth 4, skips what lies inside one, follows no link', () => {
    dir('a');
    const shared = dir('a/shared', 0o1777);
    dir('a/shared/inner', 0o777); // hidden with its parent
    const deep = dir('b/c/d/sessions', 0o1733);
    dir('b/c/d/e/too-deep', 0o777);
    dir('private', 0o700);
    symlinkSync(shared, join(root, 'link-to-shared'));
    expect(worldWritableDirs(root)).toEqual([shared, deep].sort());
  });

  test('below /, the usual places are found even when the search has no budget left for anything else', () => {
    const usual = ['/tmp', '/var/tmp', '/dev/shm', '/run/lock'].filter((d) => {
      try {
        const st = lstatSync(d);
        return st.isDirectory() && (st.mode & 0o002) !== 0;
      } catch {
        return false;
      }
    });
    expect(usual).toContain('/tmp'); // this machine's /tmp is world-writable
    const found = worldWritableDirs('/', 0);
    expect(found[0]).toBe('/tmp');
    expect([...found].sort()).toEqual([...usual].sort());
    // With the whole budget, they are found once each, among the others.
    const all = worldWritableDirs('/');
    for (const d of usual) expect(all.filter((f) => f === d)).toEqual([d]);
  });
});

describe('isUnder', () => {
  test('the directory itself and paths below it, not siblings sharing a prefix', () => {
    expect(isUnder('/tmp', ['/tmp'])).toBe(true);
    expect(isUnder('/tmp/ci/main/node_modules/bun/bin/bun.exe', ['/dev/shm', '/tmp'])).toBe(true);
    expect(isUnder('/tmpfoo/x', ['/tmp'])).toBe(false);
    expect(isUnder('/work/main', ['/tmp', '/var/tmp'])).toBe(false);
  });
});

describe('maskScript', () => {
  test('one tmpfs on the first directory, the others bound to its subdirectories, paths quoted', async () => {
    const script = maskScript(['/tmp', "/var/it's tmp"], '');
    expect(script).toContain("mount -t tmpfs -o size=64m,mode=1777,nosuid,nodev tmpfs '/tmp'");
    expect(script).toContain("mount --bind '/tmp/.host-1' '/var/it'\\''s tmp'");
    expect(script.split('mount -t tmpfs').length).toBe(2);
    // Valid shell: sh -n parses it without running anything.
    const check = Bun.spawnSync(['sh', '-n', '-c', script]);
    expect(check.exitCode).toBe(0);
  });
});
