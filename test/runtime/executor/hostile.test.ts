// Hostile components under process isolation. Each attempt must be contained: the canary never
// leaves, the attempt fails or the invocation ends with 502/504, and the next invocation works.
// Where this machine lacks a sandbox layer, the affected test is skipped and says which layer.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createExecutor, type ExecutionOutcome } from '../../../runtime/executor/index.ts';
import { both, failureOf, hostVisibleDir, node, ofTenant, request, resultOf } from './helpers.ts';

const CANARY = `canary-${crypto.randomUUID()}`;
process.env.EXECUTOR_TEST_CANARY = CANARY;

// A root-only file standing in for the database file, in a directory anyone may traverse and hosts
// can see (they have a /tmp of their own).
const canaryDir = hostVisibleDir('executor-hostile');
const canaryFile = join(canaryDir, 'platform.db');
writeFileSync(canaryFile, CANARY);
chmodSync(canaryFile, 0o600);

const executor = await createExecutor({ isolation: 'process', hosts: 2, memoryMb: 512, log: () => {} });
const layers = executor.status().layers;
const needs = (layer: keyof typeof layers, name: string): [boolean, string] => [
  !layers[layer],
  layers[layer] ? name : `${name} [skipped: sandbox layer "${layer}" is missing on this machine]`,
];

afterAll(async () => {
  await executor.close();
  rmSync(canaryDir, { recursive: true, force: true });
});

function expectNoCanary(outcome: ExecutionOutcome): void {
  expect(JSON.stringify(outcome)).not.toContain(CANARY);
}

const healthy = node(`export default async (api) => ({ ok: api.input().params.id })`);
async function expectNextInvocationWorks(): Promise<void> {
  expect(resultOf(await executor.execute(request(healthy)))).toEqual({ ok: '42' });
}

async function run(body: string, timeoutMs = 10_000): Promise<ExecutionOutcome> {
  return executor.execute(request(both(body).node, { timeoutMs }));
}

describe('hostile components (process isolation)', () => {
  test('every sandbox layer this test suite relies on is reported', () => {
    const missing = Object.entries(layers).filter(([, on]) => !on).map(([name]) => name);
    if (missing.length > 0) console.warn(`executor sandbox layers missing on this machine: ${missing.join(', ')}`);
    expect(executor.status().hostsReady).toBeGreaterThan(0);
  });

  test.skipIf(needs('emptyEnv', '')[0])(needs('emptyEnv', 'process.env and Bun.env hold no server variables')[1], async () => {
    const out = await run(`return { env: JSON.stringify(process.env), bun: JSON.stringify(Bun.env), n: Object.keys(process.env).length };`);
    expectNoCanary(out);
    expect(resultOf(out)).toMatchObject({ n: 0 });
    await expectNextInvocationWorks();
  });

  test('/proc/self/environ and /proc/1/environ hold no server variables', async () => {
    const out = await run(`const fs = await import('node:fs');
      const read = (p) => { try { return fs.readFileSync(p, 'utf8'); } catch (e) { return 'error: ' + e.code; } };
      return { self: read('/proc/self/environ'), one: read('/proc/1/environ'), parent: read('/proc/' + process.ppid + '/environ') };`);
    expectNoCanary(out);
    await expectNextInvocationWorks();
  });

  test.skipIf(needs('unprivilegedUser', '')[0])(needs('unprivilegedUser', 'a root-only 0600 file cannot be read')[1], async () => {
    const out = await run(`const fs = await import('node:fs');
      try { return fs.readFileSync(${JSON.stringify(canaryFile)}, 'utf8'); } catch (e) { return 'denied: ' + e.code; }`);
    expectNoCanary(out);
    expect(resultOf(out)).toBe('denied: EACCES');
    await expectNextInvocationWorks();
  });

  test.skipIf(needs('syscallFilter', '')[0])(needs('syscallFilter', 'no process can be started: Bun.spawn, child_process and fork through bun:ffi fail')[1], async () => {
    const out = await run(`const attempt = (f) => { try { return 'ran: ' + f(); } catch (e) { return 'blocked: ' + e.code; } };
      const { dlopen } = await import('bun:ffi');
      const libc = dlopen('libc.so.6', { fork: { returns: 'i32' }, execv: { args: ['ptr', 'ptr'], returns: 'i32' } });
      return {
        spawnSync: attempt(() => Bun.spawnSync(['sh', '-c', 'cat ${canaryFile}; env']).stdout.toString()),
        spawn: attempt(() => Bun.spawn(['sleep', '1']).pid),
        childProcess: attempt(() => require('node:child_process').execSync('env', { encoding: 'utf8' })),
        fork: libc.symbols.fork(),
        execv: libc.symbols.execv(Buffer.from('/bin/sh\\0'), null),
      };`);
    expectNoCanary(out);
    expect(resultOf(out)).toEqual({
      spawnSync: 'blocked: EPERM',
      spawn: 'blocked: EPERM',
      childProcess: 'blocked: EPERM',
      fork: -1,
      execv: -1,
    });
    await expectNextInvocationWorks();
  });

  describe('without the syscall filter (machines where seccomp is not allowed)', () => {
    let unfiltered: Awaited<ReturnType<typeof createExecutor>>;
    beforeAll(async () => {
      unfiltered = await createExecutor({ isolation: 'process', hosts: 1, memoryMb: 512, syscallFilter: false, log: () => {} });
    });
    afterAll(() => unfiltered.close());

    test('the host reports the layer missing', () => {
      expect(unfiltered.status().layers.syscallFilter).toBe(false);
    });

    test('Bun.spawn runs only inside the sandbox and learns nothing', async () => {
      const out = await unfiltered.execute(request(both(`const p = Bun.spawnSync(['sh', '-c', 'cat ${canaryFile} 2>&1; echo "uid=$(id -u)"; env; cat /proc/1/environ']);
        return p.stdout.toString() + p.stderr.toString();`).node));
      expectNoCanary(out);
      if (layers.unprivilegedUser) expect(String(resultOf(out))).toContain('uid=65534');
    });

    test('child_process runs only inside the sandbox and learns nothing', async () => {
      const out = await unfiltered.execute(request(both(`const cp = await import('node:child_process');
        try { return cp.execSync('cat ${canaryFile} 2>&1; env; ls /proc', { encoding: 'utf8' }); } catch (e) { return 'failed: ' + e.message + String(e.stdout ?? ''); }`).node));
      expectNoCanary(out);
    });
  });

  test.skipIf(needs('networkNamespace', '')[0])(needs('networkNamespace', 'fetch to a loopback server never arrives')[1], async () => {
    let hits = 0;
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => { hits++; return new Response(CANARY); } });
    try {
      const out = await run(`try { const r = await fetch('http://127.0.0.1:${server.port}/'); return 'reached: ' + await r.text(); }
        catch (e) { return 'blocked: ' + e.message; }`);
      expectNoCanary(out);
      expect(String(resultOf(out))).toStartWith('blocked');
      expect(hits).toBe(0);
    } finally {
      server.stop(true);
    }
    await expectNextInvocationWorks();
  });

  test('process.exit ends only that invocation', async () => {
    const f = failureOf(await run(`process.exit(3);`));
    expect(f).toMatchObject({ status: 502, code: 'EXECUTOR_CRASHED' });
    await expectNextInvocationWorks();
  });

  test.skipIf(needs('pidNamespace', '')[0])(needs('pidNamespace', 'process.kill of its own pid, or of every process, reaches nothing')[1], async () => {
    const out = await run(`process.kill(process.pid); process.kill(process.pid, 'SIGKILL');
      try { process.kill(-1, 'SIGKILL'); } catch {} return { pid: process.pid, alive: true };`);
    expect(resultOf(out)).toEqual({ pid: 1, alive: true });
    await expectNextInvocationWorks();
  });

  test("kill(0) (the caller's process group) from one workspace's code reaches no other workspace's host", async () => {
    // Module state lives as long as its Worker and host: a count that goes on proves the host lived.
    const counter = ofTenant(node(`let n = 0; export default async () => ++n;`), 'bystander');
    expect(resultOf(await executor.execute(request(counter)))).toBe(1);
    const attacker = ofTenant(node(`export default async () => { try { process.kill(0, 'SIGKILL'); } catch (e) { return e.code; } return 'sent'; }`), 'attacker');
    await executor.execute(request(attacker)); // its own host may go with it
    await Bun.sleep(300);
    expect(resultOf(await executor.execute(request(counter)))).toBe(2);
  });

  test('garbage and forged lines written to the host channel are ignored', async () => {
    const out = await run(`const fs = await import('node:fs');
      fs.writeSync(3, 'garbage\\n' + 'D 999999999\\t{"kind":"results","results":[],"logs":[]}\\n' + 'H\\t{}\\n');
      return 'wrote';`);
    expect(resultOf(out)).toBe('wrote');
    await expectNextInvocationWorks();
  });

  test('flooding the host channel with lines that answer nothing gets that host stopped; others carry on', async () => {
    const out = await run(`const fs = await import('node:fs'); const lines = 'k 1\\n'.repeat(5000);
      for (let i = 0; i < 40; i++) { try { fs.writeSync(3, lines); } catch {} } await new Promise(() => {});`, 5000);
    expect(failureOf(out)).toMatchObject({ status: 502, code: 'EXECUTOR_CRASHED' });
    await expectNextInvocationWorks();
    expect(resultOf(await executor.execute(request(ofTenant(healthy, 'beside-the-flood'))))).toEqual({ ok: '42' });
  }, 20_000);

  test('flooding the host channel with one endless line is contained', async () => {
    const out = await run(`const fs = await import('node:fs'); const chunk = 'x'.repeat(1 << 20);
      for (let i = 0; i < 16; i++) { try { fs.writeSync(3, chunk); } catch {} } await new Promise(() => {});`, 1000);
    expect([502, 504]).toContain(failureOf(out).status);
    await expectNextInvocationWorks();
  }, 20_000);

  test('closing the host channel is contained', async () => {
    const out = await run(`const fs = await import('node:fs'); fs.closeSync(3); await new Promise(() => {});`, 1000);
    expect([502, 504]).toContain(failureOf(out).status);
    await expectNextInvocationWorks();
  }, 20_000);

  test.each([
    ['a synchronous infinite loop', 'for (;;) {}'],
    ['an infinite microtask loop', 'for (;;) { await 0; }'],
    ['Atomics.wait forever', 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); return 1;'],
    [
      'a WebAssembly infinite loop',
      `const bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,4,1,96,0,0,3,2,1,0,7,5,1,1,102,0,0,10,9,1,7,0,3,64,12,0,11,11]);
       const { instance } = await WebAssembly.instantiate(bytes); instance.exports.f(); return 1;`,
    ],
  ])('%s ends with 504 and the next invocation works', async (_name, body) => {
    const f = failureOf(await run(body, 500));
    expect(f).toMatchObject({ status: 504, code: 'EXECUTION_TIMEOUT' });
    await expectNextInvocationWorks();
  }, 20_000);

  test.skipIf(process.getuid?.() !== 0)(
    process.getuid?.() === 0
      ? 'a thread bomb stops at the hosts\' share of the pid space; the server and the next invocations carry on'
      : 'thread bomb [skipped: the hosts\' thread limit (RLIMIT_NPROC of their uid) is set only when the server runs as root]',
    async () => {
      // Threads that sleep for 2 s, created through libc until the kernel refuses (EAGAIN = 11).
      const bomb = `const { dlopen, ptr } = await import('bun:ffi');
        const libc = dlopen('libc.so.6', {
          pthread_attr_init: { args: ['ptr'], returns: 'i32' },
          pthread_attr_setstacksize: { args: ['ptr', 'u64'], returns: 'i32' },
          pthread_create: { args: ['ptr', 'ptr', 'ptr', 'ptr'], returns: 'i32' },
          dlsym: { args: ['ptr', 'cstring'], returns: 'ptr' },
        });
        const sleepFn = libc.symbols.dlsym(null, Buffer.from('sleep\\0'));
        const attr = new Uint8Array(64); libc.symbols.pthread_attr_init(ptr(attr));
        libc.symbols.pthread_attr_setstacksize(ptr(attr), 65536);
        const tid = new Uint8Array(8);
        let created = 0, rc = 0;
        for (; created < 40000; created++) { rc = libc.symbols.pthread_create(ptr(tid), ptr(attr), sleepFn, 2); if (rc !== 0) break; }
        return { created, rc };`;
      const pidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
      const out = resultOf(await run(bomb, 20_000)) as { created: number; rc: number };
      expect(out.rc).toBe(11);
      expect(out.created).toBeLessThan(pidMax / 4);
      await Bun.sleep(2500); // the threads end
      await expectNextInvocationWorks();
      expect(resultOf(await executor.execute(request(ofTenant(healthy, 'after-the-bomb'))))).toEqual({ ok: '42' });
    },
    60_000,
  );

  test('the pool is whole again after hosts were killed: every host ready, both spares warm', async () => {
    const whole = () => executor.status().hostsReady === executor.status().hostsTotal && executor.status().hostsSpare === 2;
    const deadline = Date.now() + 20_000;
    while (!whole() && Date.now() < deadline) await Bun.sleep(50);
    expect(executor.status()).toMatchObject({ hostsReady: executor.status().hostsTotal, hostsSpare: 2 });
  }, 30_000);

  test.skipIf(needs('addressSpaceLimit', '')[0])(needs('addressSpaceLimit', 'a memory bomb ends with 502 EXECUTOR_RESOURCE_LIMIT')[1], async () => {
    const f = failureOf(await run(`const hoard = []; for (;;) hoard.push(new Array(1 << 17).fill(1.5));`, 30_000));
    expect(f).toMatchObject({ status: 502, code: 'EXECUTOR_RESOURCE_LIMIT' });
    await expectNextInvocationWorks();
  }, 40_000);

  test.skipIf(needs('addressSpaceLimit', '')[0])(needs('addressSpaceLimit', 'a bomb of small objects (JavaScriptCore aborts the host: it cannot throw there) ends with 502 EXECUTOR_RESOURCE_LIMIT')[1], async () => {
    const f = failureOf(await run(`const hoard = []; for (;;) hoard.push({ a: Math.random(), b: [1, 2, 3] });`, 30_000));
    expect(f).toMatchObject({ status: 502, code: 'EXECUTOR_RESOURCE_LIMIT' });
    await expectNextInvocationWorks();
  }, 40_000);

  test.skipIf(needs('addressSpaceLimit', '')[0])(needs('addressSpaceLimit', 'a typed-array memory bomb ends with 502 EXECUTOR_RESOURCE_LIMIT')[1], async () => {
    const f = failureOf(await run(`const hoard = []; for (;;) hoard.push(new Uint8Array(64 << 20).fill(1));`, 30_000));
    expect(f).toMatchObject({ status: 502, code: 'EXECUTOR_RESOURCE_LIMIT' });
    await expectNextInvocationWorks();
  }, 40_000);
});
