// Workers of one executor host share its process and its channel to the server (fd 3), so code
// that reads that channel takes the lines meant for its neighbours. Hosts are therefore bound to
// one tenant (the component's workspace) for life: another tenant's code never runs beside it.
// These tests run the attack itself and check the pool that makes hosts per tenant affordable.
import { afterAll, describe, expect, test } from 'bun:test';
import { createExecutor, type Executor } from '../../../runtime/executor/index.ts';
import { worldWritableDirs } from '../../../runtime/executor/server/private-tmp.ts';
import { failureOf, node, ofTenant, request, resultOf } from './helpers.ts';

const IDLE_MS = 1500;
const executor: Executor = await createExecutor({
  isolation: 'process', hosts: 1, maxHosts: 3, hostsPerTenant: 1, workerIdleMs: IDLE_MS, log: () => {},
});
afterAll(() => executor.close());
const layers = executor.status().layers;

/** Which host process runs the code: its network namespace, else its start time (both per process). */
const WHERE_AM_I = `export default async () => {
  const fs = await import('node:fs');
  try { return fs.readlinkSync('/proc/self/ns/net'); } catch {}
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  return 'start:' + stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
}`;
const whereAmI = node(WHERE_AM_I);
const hostOf = async (tenant: string): Promise<string> => String(resultOf(await executor.execute(request(ofTenant(whereAmI, tenant)))));

/** Reads the host's channel for `ms` and returns what it got there. */
const spy = (ms: number) =>
  node(`export default async () => {
    const fs = await import('node:fs');
    const buf = Buffer.alloc(1 << 16);
    let seen = '';
    const end = Date.now() + ${ms};
    while (Date.now() < end) {
      try { const n = fs.readSync(3, buf, 0, buf.length, null); if (n > 0) seen += buf.toString('utf8', 0, n); } catch {}
      await 0;
    }
    return seen;
  }`);

async function waitFor(check: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await Bun.sleep(25);
  return check();
}

async function runSpyAgainst(spyTenant: string, victimTenant: string, marker: string) {
  const spying = executor.execute(request(ofTenant(spy(1500), spyTenant), { timeoutMs: 5000 }));
  await Bun.sleep(200);
  const victim = ofTenant(node(`export default async (api) => api.input().params.id`), victimTenant);
  const victims = await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      await Bun.sleep(i * 50);
      return executor.execute(request(victim, { timeoutMs: 3000, input: { ...request(victim).input, params: { id: `${marker}-${i}` } } }));
    }),
  );
  return { seen: String(resultOf(await spying)), victims };
}

describe('executor hosts per tenant (process isolation)', () => {
  test('code of different tenants runs in different host processes; one tenant\'s revisions share', async () => {
    const a = await hostOf('tenant-a');
    expect(a).not.toBe('');
    expect(await hostOf('tenant-a')).toBe(a);
    // Another revision of the same tenant: with one host per tenant allowed, the same process.
    expect(String(resultOf(await executor.execute(request(ofTenant(node(WHERE_AM_I), 'tenant-a')))))).toBe(a);
    const b = await hostOf('tenant-b');
    expect(b).not.toBe(a);
  });

  test('a revision is verified (its top-level code run) in its own tenant\'s host, never in another\'s', async () => {
    // Top-level code that fails with the name of the process it runs in: the verification's error.
    const failsWithWhere = (tenant: string) =>
      ofTenant(node(`import { readlinkSync, readFileSync } from 'node:fs';
        let where; try { where = readlinkSync('/proc/self/ns/net'); } catch { const s = readFileSync('/proc/self/stat', 'utf8'); where = 'start:' + s.slice(s.lastIndexOf(')') + 2).split(' ')[19]; }
        throw new Error('WHERE=' + where + '=END');
        export default async () => null;`), tenant);
    const whereVerified = async (tenant: string): Promise<string> => {
      const outcome = await executor.verify(failsWithWhere(tenant));
      expect(outcome.ok).toBe(false);
      return /WHERE=(.*?)=END/.exec(outcome.ok ? '' : outcome.error)?.[1] ?? `no marker in: ${JSON.stringify(outcome)}`;
    };
    const own = await hostOf('verify-own');
    expect(await whereVerified('verify-own')).toBe(own);
    expect(await whereVerified('verify-other')).not.toBe(own);
  });

  test('a component reading its host\'s channel sees nothing of another tenant\'s invocations', async () => {
    const marker = `victim-${crypto.randomUUID()}`;
    const { seen, victims } = await runSpyAgainst('tenant-spy', 'tenant-victim', marker);
    expect(seen).not.toContain(marker);
    expect(victims.map((v) => resultOf(v))).toEqual(Array.from({ length: 20 }, (_, i) => `${marker}-${i}`));
  }, 20_000);

  test('within one tenant the channel is shared (what the binding guards against across tenants)', async () => {
    const marker = `neighbour-${crypto.randomUUID()}`;
    const { seen, victims } = await runSpyAgainst('tenant-shared', 'tenant-shared', marker);
    const lost = victims.filter((v) => v.kind === 'failed').length;
    // The spy took lines (and their secrets) meant for its neighbours, or they went unanswered.
    expect(seen.includes(marker) || lost > 0).toBe(true);
  }, 20_000);

  test.skipIf(!layers.privateTmp)(
    layers.privateTmp
      ? 'files one tenant leaves in any directory anyone may write are not there for another'
      : 'files left in world-writable directories [skipped: sandbox layer "privateTmp" is missing on this machine]',
    async () => {
      const dirs = worldWritableDirs();
      const name = `left-${crypto.randomUUID()}`;
      const leave = node(`export default async () => { const fs = await import('node:fs');
        return ${JSON.stringify(dirs)}.map((d) => { try { fs.writeFileSync(d + '/${name}', 'secret'); return 'left'; } catch (e) { return e.code; } }); }`);
      const look = node(`export default async () => { const fs = await import('node:fs');
        return ${JSON.stringify(dirs)}.map((d) => { try { return fs.readFileSync(d + '/${name}', 'utf8'); } catch (e) { return e.code; } }); }`);
      expect(resultOf(await executor.execute(request(ofTenant(leave, 'leaves-files'))))).toEqual(dirs.map(() => 'left'));
      expect(resultOf(await executor.execute(request(ofTenant(look, 'looks-for-files'))))).toEqual(dirs.map(() => 'ENOENT'));
      // The same tenant's next invocation, in the same host, finds them: the test can see a file.
      expect(resultOf(await executor.execute(request(ofTenant(look, 'leaves-files'))))).toEqual(dirs.map(() => 'secret'));
    },
  );

  test.skipIf(!layers.ipcNamespace)(
    layers.ipcNamespace
      ? 'a SysV shared memory segment of one tenant is not visible to another'
      : 'SysV shared memory [skipped: sandbox layer "ipcNamespace" is missing on this machine]',
    async () => {
      const key = 0x7e000000 + Math.floor(Math.random() * 0xffff);
      const shmget = (flags: number) => node(`export default async () => { const { dlopen } = await import('bun:ffi');
        const libc = dlopen('libc.so.6', { shmget: { args: ['i32', 'u64', 'i32'], returns: 'i32' } });
        return libc.symbols.shmget(${key}, 4096, ${flags}); }`);
      expect(resultOf(await executor.execute(request(ofTenant(shmget(0o1000 | 0o600), 'ipc-owner'))))).toBeGreaterThanOrEqual(0);
      expect(resultOf(await executor.execute(request(ofTenant(shmget(0), 'ipc-owner'))))).toBeGreaterThanOrEqual(0);
      expect(resultOf(await executor.execute(request(ofTenant(shmget(0), 'ipc-other'))))).toBe(-1);
    },
  );

  test('at the ceiling a new tenant takes the place of the least recently used idle host', async () => {
    for (const tenant of ['ceiling-1', 'ceiling-2', 'ceiling-3', 'ceiling-4']) {
      expect(await hostOf(tenant)).not.toBe('');
      expect(executor.status().hostsTotal).toBeLessThanOrEqual(3);
    }
  }, 30_000);

  test('a tenant waits for its own host rather than use another\'s; the wait is not its run time', async () => {
    // Three tenants busy for a while fill the ceiling; a fourth has nowhere to go until one is idle.
    const sleepThenWhere = WHERE_AM_I.replace('export default async () => {', 'export default async () => { await Bun.sleep(1200);');
    const finished: string[] = [];
    const busy = ['busy-1', 'busy-2', 'busy-3'].map((t) =>
      executor.execute(request(ofTenant(node(sleepThenWhere), t))).then((o) => (finished.push(t), String(resultOf(o)))),
    );
    await Bun.sleep(300);
    // Its deadline (300 ms) is shorter than the wait: it counts from when it reaches a Worker.
    const late = String(resultOf(await executor.execute(request(ofTenant(whereAmI, 'busy-4'), { timeoutMs: 300 }))));
    expect(finished.length).toBeGreaterThan(0); // it ran only once a busy tenant's host was idle
    expect(await Promise.all(busy)).not.toContain(late); // and not in any of their processes
  }, 30_000);

  test('a host freed by a stopped Worker goes to a tenant waiting at the ceiling', async () => {
    // Three hosts in use: one runs a loop past its deadline, two sleep for 3 s; a fourth tenant
    // waits and must get the looping tenant's host once that Worker is gone: Workers are evicted
    // only after a minute here, and the pool's sweep (every 5 s) comes after the sleepers end.
    const own = await createExecutor({ isolation: 'process', hosts: 1, maxHosts: 3, hostsPerTenant: 1, log: () => {} });
    try {
      const spin = own.execute(request(ofTenant(node(`export default async () => { for (;;) {} }`), 'freed-spin'), { timeoutMs: 400 }));
      let slept = 0;
      const sleepers = ['freed-sleep-1', 'freed-sleep-2'].map((t) =>
        own.execute(request(ofTenant(node(`export default async () => { await Bun.sleep(3000); return 'slept'; }`), t))).then((o) => (slept++, o)),
      );
      await Bun.sleep(100);
      const waiting = await own.execute(request(ofTenant(node(`export default async () => 'served'`), 'freed-waiting'), { timeoutMs: 5000 }));
      expect(resultOf(waiting)).toBe('served');
      expect(slept).toBe(0); // served by the freed host, not by one the sleepers left
      expect(failureOf(await spin)).toMatchObject({ status: 504 });
      expect((await Promise.all(sleepers)).map((o) => resultOf(o))).toEqual(['slept', 'slept']);
    } finally {
      await own.close();
    }
  }, 30_000);

  test('at the ceiling a host idle for a while gives its place to a spare, so a new tenant does not wait for a start', async () => {
    // Idle eviction after 4 s; a host idle 1 s at the ceiling makes way for a spare (checked every 2 s).
    const own = await createExecutor({ isolation: 'process', hosts: 1, maxHosts: 2, hostsPerTenant: 1, workerIdleMs: 4000, log: () => {} });
    try {
      const hostA = String(resultOf(await own.execute(request(ofTenant(whereAmI, 'reclaim-a')))));
      expect(await waitFor(() => own.status().hostsSpare === 1)).toBe(true);
      resultOf(await own.execute(request(ofTenant(whereAmI, 'reclaim-b'))));
      expect(own.status()).toMatchObject({ hostsTotal: 2, hostsSpare: 0 }); // the ceiling, no spare
      expect(await waitFor(() => own.status().hostsSpare === 1 && own.status().hostsReady === 2, 3500)).toBe(true);
      expect(own.status().hostsTotal).toBe(2);
      // The spare is ready for a third tenant, in a process of its own.
      expect(String(resultOf(await own.execute(request(ofTenant(whereAmI, 'reclaim-c')))))).not.toBe(hostA);
    } finally {
      await own.close();
    }
  }, 30_000);

  test('idle hosts are stopped and the spares stay warm', async () => {
    expect(await waitFor(() => executor.status().hostsTotal === 1 && executor.status().hostsSpare === 1, IDLE_MS * 4 + 5000)).toBe(true);
    expect(executor.status().hostsReady).toBe(1);
  }, 20_000);
});
