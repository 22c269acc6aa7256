// A supervisor signals the process it started: `npm start` (DESIGN §12). The start scripts exec
// their server, so SIGTERM or SIGINT to npm's process stops the server cleanly and leaves no
// process behind.
import { expect, test } from 'bun:test';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp.ts';

const root = join(import.meta.dir, '..', '..');

/** The pids below `pid` (children, grandchildren …), from /proc. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  const children = (p: number) => {
    const file = `/proc/${p}/task/${p}/children`;
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  };
  const pending = children(pid);
  while (pending.length > 0) {
    const p = pending.shift()!;
    out.push(p);
    pending.push(...children(p));
  }
  return out;
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} to npm's process stops the server, and nothing is left running`, async () => {
    const data = tempDir('start-signals');
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: root,
      env: { ...process.env, PORT: '0', RUNTIME_PORT: '0', DATA_DIR: data, DATABASE_URL: `sqlite:${join(data, 'p.db')}`, COMPONENT_ISOLATION: 'worker', PLATFORM_ADMIN_API_KEY: 'sk-start-signals-0123456789abcdefghijkl', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (b) => (output += b));
    npm.stderr.on('data', (b) => (output += b));
    const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 30_000;
    while (!/runtime listening/.test(output) || !/control plane listening/.test(output)) {
      if (Date.now() > deadline) throw new Error(`not started: ${output}`);
      await Bun.sleep(50);
    }
    const below = descendants(npm.pid!);
    expect(below.length).toBeGreaterThan(0);
    npm.kill(signal);
    const code = await Promise.race([exited, Bun.sleep(20_000).then(() => 'timeout' as const)]);
    expect(code).not.toBe('timeout');
    await Bun.sleep(200);
    expect(below.filter(alive)).toEqual([]);
    expect(output).toContain('shutting down');
  }, 60_000);
}
