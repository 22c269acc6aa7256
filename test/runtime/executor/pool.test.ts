// The host pool (runtime/executor/server/pool.ts) with in-process hosts: spares come back to their
// number, a tenant waiting for a host gets one started, and spares started for tenants that
// then needed none are stopped again.
import { afterAll, describe, expect, test } from 'bun:test';
import { Dispatcher } from '../../../runtime/executor/server/dispatcher.ts';
import { startInProcessHost } from '../../../runtime/executor/server/inprocess-host.ts';
import { HostPool } from '../../../runtime/executor/server/pool.ts';

const log: string[] = [];
let pool: HostPool | undefined;
const dispatcher = new Dispatcher({
  limits: { maxWorkersPerHost: 4, maxHostsPerTenant: 1, bindTenants: true },
  verifyTimeoutMs: 1000,
  unavailable: () => null,
  hostsChanged: () => pool?.adjust(),
  log: (line) => log.push(line),
});
pool = new HostPool({ spares: 1, max: 4, reclaimIdleMs: 60_000 }, async (name, events) => startInProcessHost(name, events, () => {}), dispatcher, (line) => log.push(line));
afterAll(() => pool!.close());

async function settle(): Promise<void> {
  for (let i = 0; i < 100 && dispatcher.hosts.some((h) => h.retiring); i++) await Bun.sleep(10);
  await Bun.sleep(20);
}

describe('HostPool', () => {
  test('starts its spares, starts one per waiting tenant, and stops the spares nobody took', async () => {
    await pool!.warm();
    expect(pool!.spares).toBe(1);
    // Two tenants wait (as the dispatcher records them): one more host each beyond the spare.
    dispatcher.wanting.add('a');
    dispatcher.wanting.add('b');
    pool!.adjust();
    await settle();
    expect(pool!.spares).toBe(2);
    // They gave up (their calls ended): the extra spare goes, the configured one stays.
    dispatcher.wanting.clear();
    pool!.trimSpares();
    await settle();
    expect(pool!.spares).toBe(1);
    expect(pool!.total).toBe(1);
    expect(log.some((l) => l.includes('(spare) retired: a spare beyond EXECUTOR_HOSTS'))).toBe(true);
  });

  test('never goes past its ceiling for tenants waiting', async () => {
    for (const t of ['c', 'd', 'e', 'f', 'g', 'h']) dispatcher.wanting.add(t);
    pool!.adjust();
    await settle();
    expect(pool!.total).toBe(4);
    dispatcher.wanting.clear();
    pool!.trimSpares();
    await settle();
    expect(pool!.total).toBe(1);
  });
});
