// Hostile component code against the real runtime over HTTP, in sandboxed executor hosts: each
// attempt fails or ends 502/504, the canary never leaves, and the next request is answered normally.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { hostVisibleDir } from './executor/helpers.ts';
import { dirname, join } from 'node:path';
import { startStack, type Stack } from '../helpers/stack.ts';

const CANARY = `canary-${crypto.randomUUID()}`;
let s: Stack;
let dbFile: string;

beforeAll(async () => {
  process.env.PLATFORM_TEST_CANARY = CANARY;
  // Where hosts can see it (they have a /tmp of their own), in a directory anyone may traverse:
  // only the platform's own modes (data/ 0700, the file 0600) keep it from the hosts.
  dbFile = join(hostVisibleDir('hostile'), 'data', 'platform.db');
  s = await startStack({ DATABASE_URL: `sqlite:${dbFile}` }, { isolation: 'process' });
  await s.endpoint({ method: 'GET', path: '/ok', staticResponse: { status: 200, body: 'fine' } });
  const c = await s.api('POST', '/api/v1/components', { name: 'echo', kind: 'lowcode', elements: [{ name: 'v', code: 'return "alive";' }] });
  await s.endpoint({ method: 'GET', path: '/alive', componentId: c.body.id, popResult: 'v' });
}, 60_000);
afterAll(async () => {
  await s.close();
  rmSync(dirname(dirname(dbFile)), { recursive: true, force: true });
  delete process.env.PLATFORM_TEST_CANARY;
});

/** Runs `code` as a lowcode element at a fresh path; returns status and text. */
async function attempt(code: string, timeoutMs = 2000): Promise<{ status: number; text: string }> {
  const c = await s.api('POST', '/api/v1/components', { name: `h${crypto.randomUUID().slice(0, 8)}`, kind: 'lowcode', elements: [{ name: 'r', code }] });
  if (c.status !== 201) throw new Error(JSON.stringify(c.body));
  const path = `/hostile/${crypto.randomUUID().slice(0, 8)}`;
  await s.endpoint({ method: 'GET', path, componentId: c.body.id, popResult: 'r', timeoutMs });
  const r = await s.invoke('GET', path);
  return { status: r.status, text: await r.text() };
}

async function stillServing() {
  const alive = await s.invoke('GET', '/alive');
  expect(alive.status).toBe(200);
  expect(await alive.json()).toBe('alive');
}

describe('the sandbox as the runtime reports it', () => {
  test('/readyz states process isolation and the layers in force', async () => {
    const r = await fetch(`${s.runtimeUrl}/readyz`);
    const body = (await r.json()) as { checks: { executor: { isolation: string; layers: Record<string, boolean> } } };
    expect(body.checks.executor.isolation).toBe('process');
    const layers = body.checks.executor.layers;
    const missing = Object.entries(layers).filter(([, on]) => !on).map(([name]) => name);
    if (missing.length > 0) console.log(`[sandbox] layers not available on this machine: ${missing.join(', ')}`);
    expect(layers.emptyEnv).toBe(true);
  });
});

describe('secrets never leave', () => {
  test.each([
    ['process.env', 'return JSON.stringify(process.env);'],
    ['Bun.env', 'return JSON.stringify(Bun.env);'],
    ['/proc/self/environ', 'const fs = await import("node:fs"); try { return fs.readFileSync("/proc/self/environ", "utf8"); } catch (e) { return "denied: " + e.code; }'],
    ['/proc/1/environ', 'const fs = await import("node:fs"); try { return fs.readFileSync("/proc/1/environ", "utf8"); } catch (e) { return "denied: " + e.code; }'],
  ])('%s holds no canary', async (_name, code) => {
    const r = await attempt(code);
    expect(r.text).not.toContain(CANARY);
    await stillServing();
  });

  test('the database file cannot be read', async () => {
    const r = await attempt(`const fs = await import("node:fs"); try { return fs.readFileSync(${JSON.stringify(dbFile)}).length; } catch (e) { return "denied: " + e.code; }`);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toMatch(/^denied: E(ACCES|PERM)/);
  });

  test('the control plane on loopback is unreachable', async () => {
    const r = await attempt(`try { const res = await fetch(${JSON.stringify(s.baseUrl + '/api/v1/me')}); return "reached " + res.status; } catch (e) { return "blocked"; }`);
    expect(r.text).not.toContain('reached');
    await stillServing();
  });

  test('no processes can be spawned', async () => {
    const r = await attempt('try { const p = Bun.spawnSync(["/bin/sh", "-c", "echo $PLATFORM_TEST_CANARY; id"]); return "ran " + p.stdout.toString(); } catch (e) { return "blocked"; }');
    expect(r.text).not.toContain(CANARY);
    const ready = (await (await fetch(`${s.runtimeUrl}/readyz`)).json()) as { checks: { executor: { layers: { syscallFilter: boolean } } } };
    if (ready.checks.executor.layers.syscallFilter) expect(JSON.parse(r.text)).toBe('blocked');
    else console.log('[sandbox] the syscall filter is missing on this machine: a spawned process runs, confined by the other layers');
    await stillServing();
  });
});

describe('runaway code is contained', () => {
  test.each([
    ['a busy loop', 'for (;;) {}', [504]],
    ['an await loop', 'for (;;) { await 0; }', [504]],
    ['Atomics.wait', 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); return 1;', [504]],
    ['a WebAssembly loop', 'const m = new WebAssembly.Module(new Uint8Array([0,97,115,109,1,0,0,0,1,4,1,96,0,0,3,2,1,0,7,5,1,1,102,0,0,10,9,1,7,0,3,64,12,0,11,11])); new WebAssembly.Instance(m).exports.f(); return 1;', [504]],
    ['process.exit', 'process.exit(1);', [500, 502]],
    // The host is pid 1 of its own PID namespace, which the kernel shields from its own members'
    // signals: the attempt does nothing (200) or, without the namespace, costs only that host (502).
    ['process.kill(process.pid)', 'process.kill(process.pid, "SIGKILL"); return 1;', [200, 500, 502]],
    ['a memory bomb', 'const a = []; for (;;) a.push(new Array(1e6).fill(Math.random()));', [502, 504]],
  ])('%s → contained, and the next request is served', async (_name, code, statuses) => {
    const r = await attempt(code as string, 1500);
    expect(statuses as number[]).toContain(r.status);
    expect(r.text).not.toContain(' at ');
    await stillServing();
    expect((await s.invoke('GET', '/ok')).status).toBe(200);
  }, 30_000);
});

describe('workspaces do not share executor hosts', () => {
  test('components of two workspaces run in different host processes; /readyz counts the spares', async () => {
    // Which host process: its network namespace, else its start time (both differ per process).
    const whereAmI = `const fs = await import("node:fs");
      try { return fs.readlinkSync("/proc/self/ns/net"); } catch {}
      const stat = fs.readFileSync("/proc/self/stat", "utf8"); return "start:" + stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];`;
    const hosts: string[] = [];
    for (const name of ['tenant-one', 'tenant-two']) {
      const ws = await s.api('POST', '/api/v1/workspaces', { name: `${name}-${crypto.randomUUID().slice(0, 6)}` });
      expect(ws.status).toBe(201);
      const c = await s.api('POST', '/api/v1/components', { name, kind: 'lowcode', workspaceId: ws.body.id, elements: [{ name: 'r', code: whereAmI }] });
      expect(c.status).toBe(201);
      await s.endpoint({ method: 'GET', path: `/where/${name}`, workspaceId: ws.body.id, componentId: c.body.id, popResult: 'r' });
      const r = await s.invoke('GET', `/where/${name}`);
      expect(r.status).toBe(200);
      hosts.push((await r.json()) as string);
    }
    expect(hosts[0]).not.toBe(hosts[1]);
    const ready = (await (await fetch(`${s.runtimeUrl}/readyz`)).json()) as { checks: { executor: { hostsTotal: number; hostsSpare: number } } };
    expect(ready.checks.executor.hostsTotal).toBeGreaterThanOrEqual(3);
    expect(typeof ready.checks.executor.hostsSpare).toBe('number');
  }, 30_000);
});
