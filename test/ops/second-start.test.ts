// A second start on the same data prints no key (the first start's was shown once) and says how to
// get one back (issue #24 point 5).
import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp.ts';

const root = join(import.meta.dir, '..', '..');

async function startAndStop(data: string): Promise<string> {
  const child = Bun.spawn([process.execPath, 'src/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PORT: '0', RUNTIME_PORT: '0', DATA_DIR: data, DATABASE_URL: `sqlite:${join(data, 'p.db')}`, COMPONENT_ISOLATION: 'worker', LOG_LEVEL: 'info' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let out = '';
  const decoder = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) out += decoder.decode(chunk);
  };
  const done = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const deadline = Date.now() + 30_000;
  while (!/runtime listening/.test(out)) {
    if (Date.now() > deadline) throw new Error(out);
    await Bun.sleep(50);
  }
  child.kill('SIGTERM');
  await child.exited;
  await done;
  return out;
}

test('the first start prints the bootstrap key; the second prints none and says how to get one back', async () => {
  const data = tempDir('second-start');
  const first = await startAndStop(data);
  expect(first).toMatch(/Bootstrap INSTANCE_ADMIN API key[^\n]*\n\s+sk-/);
  const second = await startAndStop(data);
  expect(second).not.toContain('Bootstrap INSTANCE_ADMIN API key');
  expect(second).toContain('PLATFORM_ADMIN_API_KEY=');
  expect(second).toContain('already has its INSTANCE_ADMIN');
}, 60_000);
