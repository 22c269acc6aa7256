// A process that cannot start (here: its port is taken) exits non-zero with the reason, instead
// of staying alive and serving nothing.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './helpers/temp.ts';

let busy: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  busy = Bun.serve({ port: 0, hostname: '0.0.0.0', fetch: () => new Response('taken') });
});
afterAll(() => busy.stop(true));

test.each([
  ['the control plane (src/main.ts control-plane)', 'control-plane', 'PORT'],
  ['the runtime (src/main.ts runtime)', 'runtime', 'RUNTIME_PORT'],
])('%s exits 1 when its port is in use', async (_name, role, portVar) => {
  const dataDir = tempDir('start-failure');
  const env = {
    PATH: process.env.PATH ?? '',
    DATA_DIR: dataDir,
    DATABASE_URL: `sqlite:${join(dataDir, 'platform.db')}`,
    PORT: '0',
    RUNTIME_PORT: '0',
    COMPONENT_ISOLATION: 'worker',
    LOG_LEVEL: 'error',
    [portVar]: String(busy.port),
  };
  const child = Bun.spawn([process.execPath, join(import.meta.dir, '..', 'src/main.ts'), role], { env, stdout: 'pipe', stderr: 'pipe' });
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const code = await child.exited;
  clearTimeout(timer);
  expect(code).toBe(1);
  expect(await new Response(child.stderr).text()).toContain('start failed');
}, 30_000);

test.each([
  ['the control plane (src/main.ts control-plane)', 'control-plane'],
  ['both origins (src/main.ts)', 'all'],
  ['the runtime (src/main.ts runtime)', 'runtime'],
])('%s that fails after its executor started stops the hosts and removes their private copy of Bun', async (_name, role) => {
  const dataDir = tempDir('start-failure');
  // Where the executor would put a private copy of Bun and its own sources: it makes one when the
  // checkout lies below a world-writable directory the hosts get a private /tmp over (a clone
  // under /tmp, as CI's), or when the hosts' user cannot read it.
  const tmp = tempDir('start-failure-tmp');
  const env = {
    PATH: process.env.PATH ?? '',
    TMPDIR: tmp,
    DATA_DIR: dataDir,
    DATABASE_URL: 'sqlite:/proc/no-such-directory/platform.db', // opened after the executor starts: fails
    PORT: '0',
    RUNTIME_PORT: '0',
    COMPONENT_ISOLATION: 'process',
    EXECUTOR_HOSTS: '1',
    LOG_LEVEL: 'info',
  };
  const child = Bun.spawn([process.execPath, join(import.meta.dir, '..', 'src/main.ts'), role], { env, stdout: 'pipe', stderr: 'pipe' });
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const code = await child.exited;
  clearTimeout(timer);
  const output = (await new Response(child.stdout).text()) + (await new Response(child.stderr).text());
  expect(code).toBe(1);
  expect(output).toContain('executor: isolation=process');
  expect(output).toContain('start failed');
  expect(readdirSync(tmp).filter((name) => name.startsWith('bun-executor-'))).toEqual([]);
}, 30_000);
