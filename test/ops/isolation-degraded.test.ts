// Process isolation fails closed (issue #24 point 6): a sandbox layer that `process` isolation
// needs is missing → the server refuses to start, naming the layer and the fix; with
// COMPONENT_ISOLATION_DEGRADED=allow it starts and /readyz and the start log say what is missing.
// The layer is taken away by leaving `unshare` off the server's PATH.
import { afterAll, expect, test } from 'bun:test';
import { mkdirSync, symlinkSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp.ts';

const root = join(import.meta.dir, '..', '..');
const bin = tempDir('no-unshare-bin');
for (const tool of ['true', 'sh', 'env', 'mount', 'setpriv', 'prlimit', 'setsid', 'umount']) {
  const found = Bun.which(tool);
  if (found && !existsSync(join(bin, tool))) symlinkSync(found, join(bin, tool));
}
const children: ReturnType<typeof Bun.spawn>[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

function start(extra: Record<string, string>) {
  const data = tempDir('degraded-data');
  mkdirSync(data, { recursive: true });
  const child = Bun.spawn([process.execPath, 'src/main.ts'], {
    cwd: root,
    env: { PATH: bin, PORT: '0', RUNTIME_PORT: '0', DATA_DIR: data, DATABASE_URL: `sqlite:${join(data, 'p.db')}`, PLATFORM_ADMIN_API_KEY: 'sk-degraded-0123456789abcdefghijklmnop', LOG_LEVEL: 'info', ...extra },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  children.push(child);
  return child;
}

test('a missing layer stops the start (exit 2), naming the layer and the fix', async () => {
  const child = start({});
  const code = await Promise.race([child.exited, Bun.sleep(30_000).then(() => 'timeout')]);
  const log = (await new Response(child.stderr).text()) + (await new Response(child.stdout).text());
  expect(code).toBe(2);
  expect(log).toContain('pidNamespace');
  expect(log).toContain('COMPONENT_ISOLATION_DEGRADED=allow');
  expect(log).not.toContain('listening');
}, 40_000);

test('COMPONENT_ISOLATION_DEGRADED=allow starts, and /readyz and the log say what is missing', async () => {
  const child = start({ COMPONENT_ISOLATION_DEGRADED: 'allow' });
  let log = '';
  const reader = child.stderr.getReader();
  const deadline = Date.now() + 30_000;
  while (!/runtime listening on ([^\s"]+)"/.test(log) || !/control plane listening on ([^\s"]+)"/.test(log)) {
    if (Date.now() > deadline) throw new Error(log);
    const { value, done } = await reader.read();
    if (done) throw new Error(`exited: ${log}`);
    log += new TextDecoder().decode(value);
  }
  expect(log).toMatch(/"level":"warn".*degraded.*pidNamespace/);
  for (const origin of [log.match(/control plane listening on ([^\s"]+)"/)![1], log.match(/runtime listening on ([^\s"]+)"/)![1]]) {
    const ready = (await (await fetch(`${origin}/readyz`)).json()) as { checks: { executor: { degraded: string[] } } };
    expect(ready.checks.executor.degraded).toContain('pidNamespace');
  }
}, 40_000);
