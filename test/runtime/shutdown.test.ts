// SIGTERM on `npm start`'s process: stop accepting, finish in-flight invocations, flush audit and
// statistics, stop the executor, exit 0. Checked by restarting on the same database.
import { afterAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import { ADMIN_KEY } from '../helpers/platform.ts';
import { tempDir } from '../helpers/temp.ts';

const dir = tempDir('shutdown');
const children: ReturnType<typeof Bun.spawn>[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

function freePort(): number {
  const server = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = server.port!;
  server.stop(true);
  return port;
}

async function start() {
  const control = freePort();
  const runtime = freePort();
  const child = Bun.spawn([process.execPath, 'src/main.ts'], {
    cwd: join(import.meta.dir, '..', '..'),
    env: { ...process.env, PORT: String(control), RUNTIME_PORT: String(runtime), DATA_DIR: dir, DATABASE_URL: `sqlite:${join(dir, 'p.db')}`, PLATFORM_ADMIN_API_KEY: ADMIN_KEY, COMPONENT_ISOLATION: 'worker', LOG_LEVEL: 'warn' },
    stdout: 'ignore',
    stderr: 'pipe',
  });
  children.push(child);
  const base = `http://127.0.0.1:${control}`;
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok && (await fetch(`http://127.0.0.1:${runtime}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    await Bun.sleep(50);
  }
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(base + path, { method, headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as Record<string, any> };
  };
  return { child, api, base, runtimeUrl: `http://127.0.0.1:${runtime}` };
}

test('in-flight invocations finish, audit and statistics are flushed, the process exits 0', async () => {
  const first = await start();
  const c = await first.api('POST', '/api/v1/components', { name: 'slow', kind: 'lowcode', elements: [{ name: 'v', code: 'await new Promise((r) => setTimeout(r, 1500)); return "done";' }] });
  const e = await first.api('POST', '/api/v1/endpoints', { name: 'slow', method: 'GET', path: '/slow', componentId: c.body.id, popResult: 'v' });
  expect((await first.api('POST', `/api/v1/endpoints/${e.body.id}/activate`)).status).toBe(200);

  const inFlight = fetch(`${first.runtimeUrl}/slow`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  // A control-plane request still sending its body: the runtime must not wait for it to stop accepting.
  const encoder = new TextEncoder();
  const slowBody = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode('{"name":'));
      await Bun.sleep(2500);
      controller.enqueue(encoder.encode('"late"}'));
      controller.close();
    },
  });
  const upload = fetch(`${first.base}/api/v1/workspaces`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' }, body: slowBody, duplex: 'half',
  } as RequestInit).catch(() => null);
  await Bun.sleep(300);
  first.child.kill('SIGTERM');
  await Bun.sleep(200);
  // A second signal while draining changes nothing.
  first.child.kill('SIGTERM');
  await Bun.sleep(200);
  // The runtime refuses new connections at once, though the control plane is still draining.
  expect(await fetch(`${first.runtimeUrl}/slow`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } }).then(() => 'answered', () => 'refused')).toBe('refused');
  const response = await inFlight;
  expect(response.status).toBe(200);
  expect(await response.json()).toBe('done');
  await upload;
  expect(await first.child.exited).toBe(0);

  // Nothing accepted was lost: the invocation is in the statistics and the audit after a restart.
  const second = await start();
  const stats = await second.api('GET', `/api/v1/endpoints/${e.body.id}/statistics`);
  expect(stats.body.invocations).toBe(1);
  expect(stats.body.byStatusClass['2xx']).toBe(1);
  const audit = await second.api('GET', `/api/v1/audit?filter=${encodeURIComponent(JSON.stringify({ and: [{ field: 'kind', op: 'eq', value: 'invocation' }, { field: 'resourceId', op: 'eq', value: e.body.id }] }))}`);
  expect(audit.status).toBe(200);
  expect(audit.body.data).toHaveLength(1);
  expect(audit.body.data[0]).toMatchObject({ action: 'endpoint.invoke', status: 200 });
  second.child.kill('SIGTERM');
  expect(await second.child.exited).toBe(0);
}, 60_000);
