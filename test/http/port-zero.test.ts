// PORT=0 and RUNTIME_PORT=0 (DESIGN §1: "0 = any free port"): the processes bind first, so the
// derived origins (BASE_URL, ENDPOINT_RUNTIME_URL) and what is built from them name the ports
// really bound, not `:0`.
import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_KEY } from '../helpers/platform.ts';
import { tempDir } from '../helpers/temp.ts';

const dir = tempDir('port-zero');
const children: ReturnType<typeof Bun.spawn>[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `bun src/main.ts <role>` with both ports 0 and reads the origins it logs once listening. */
async function startOnPortZero(role: string, expected: number, flags = ['--max-http-header-size=131072']): Promise<{ child: ReturnType<typeof Bun.spawn>; logged: Map<string, { origin: string; derived: string }>; text: string }> {
  const data = mkdtempSync(join(dir, 'data-'));
  const child = Bun.spawn([process.execPath, ...flags, 'src/main.ts', role], {
    cwd: join(import.meta.dir, '..', '..'),
    env: { ...process.env, PORT: '0', RUNTIME_PORT: '0', BASE_URL: '', ENDPOINT_RUNTIME_URL: '', DATA_DIR: data, DATABASE_URL: `sqlite:${join(data, 'p.db')}`, PLATFORM_ADMIN_API_KEY: ADMIN_KEY, COMPONENT_ISOLATION: 'worker', LOG_LEVEL: 'info', REDIS_URL: '' },
    stdout: 'ignore',
    stderr: 'pipe',
  });
  children.push(child);
  const logged = new Map<string, { origin: string; derived: string }>();
  const reader = (child.stderr as ReadableStream<Uint8Array>).getReader();
  let text = '';
  const deadline = Date.now() + 20_000;
  while (logged.size < expected && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
    for (const m of text.matchAll(/"(?:base|runtimeUrl)":"([^"]+)","msg":"(control plane|endpoint runtime) listening on ([^\s"]+)"/g)) logged.set(m[2]!, { origin: m[3]!, derived: m[1]! });
  }
  reader.releaseLock();
  return { child, logged, text };
}

test('npm start on ports 0: the derived origins and the generated OpenAPI name the ports really bound', async () => {
  const { child, logged, text } = await startOnPortZero('all', 2);
  expect(text).not.toContain('started without --max-http-header-size');
  const control = logged.get('control plane')!;
  const runtime = logged.get('endpoint runtime')!;
  const controlPort = Number(new URL(control.origin).port);
  const runtimePort = Number(new URL(runtime.origin).port);
  expect(controlPort).toBeGreaterThan(0);
  expect(runtimePort).toBeGreaterThan(0);
  expect(control.derived).toBe(`http://127.0.0.1:${controlPort}`);
  expect(runtime.derived).toBe(`http://127.0.0.1:${runtimePort}`);
  expect((await fetch(`http://127.0.0.1:${runtimePort}/readyz`)).status).toBe(200);
  const openapi = await fetch(`http://127.0.0.1:${controlPort}/api/v1/endpoints/openapi`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(openapi.status).toBe(200);
  expect(((await openapi.json()) as { servers: { url: string }[] }).servers).toEqual([{ url: `http://127.0.0.1:${runtimePort}` }]);
  child.kill('SIGTERM');
  expect(await child.exited).toBe(0);
}, 30_000);

test('the control plane and the runtime alone on port 0 derive their origins from the ports bound', async () => {
  const controlPlane = await startOnPortZero('control-plane', 1);
  const control = controlPlane.logged.get('control plane')!;
  expect(control.derived).toBe(`http://127.0.0.1:${new URL(control.origin).port}`);
  expect(new URL(control.origin).port).not.toBe('0');
  const runtimeAlone = await startOnPortZero('runtime', 1);
  const runtime = runtimeAlone.logged.get('endpoint runtime')!;
  expect(runtime.derived).toBe(`http://127.0.0.1:${new URL(runtime.origin).port}`);
  expect(new URL(runtime.origin).port).not.toBe('0');
  for (const c of [controlPlane.child, runtimeAlone.child]) {
    c.kill('SIGTERM');
    expect(await c.exited).toBe(0);
  }
}, 40_000);

test('started without --max-http-header-size=131072, the process says what that costs', async () => {
  const bare = await startOnPortZero('runtime', 1, []);
  expect(bare.text).toContain('started without --max-http-header-size=131072');
  expect(bare.text).toContain('431');
  bare.child.kill('SIGTERM');
  expect(await bare.child.exited).toBe(0);
}, 30_000);
