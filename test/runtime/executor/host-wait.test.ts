// An invocation whose workspace has no host yet, with every spare taken, waits for one to start;
// that wait is not its run time: the deadline (the Endpoint's "maximum runtime") starts when it
// reaches a Worker. Hosts here are in-process cores whose start is slowed down on purpose, so the
// wait is longer than the deadline every time.
import { afterAll, describe, expect, test } from 'bun:test';
import { assembleExecutor } from '../../../runtime/executor/server/executor.ts';
import { startInProcessHost } from '../../../runtime/executor/server/inprocess-host.ts';
import { NO_LAYERS } from '../../../runtime/executor/server/layers.ts';
import { lowcode, ofTenant, request, resultOf } from './helpers.ts';

const START_MS = 700;
let starts = 0;
const executor = await assembleExecutor({
  isolation: 'process',
  pool: { spares: 1, max: 4 },
  limits: { maxWorkersPerHost: 4, maxHostsPerTenant: 1, bindTenants: true },
  launch: async (name, events) => {
    if (starts++ > 0) await Bun.sleep(START_MS); // the first (warm) spare starts at once
    return startInProcessHost(name, events, () => {});
  },
  layers: () => ({ ...NO_LAYERS }),
  log: () => {},
});
afterAll(() => executor.close());

describe('waiting for a host to start', () => {
  test('does not count against the deadline of an invocation whose workspace has no host', async () => {
    const rev = lowcode({ name: 'default', code: 'return api.input().params.id;' });
    // The warm spare goes to the first workspace; a replacement starts (slowly).
    expect(resultOf(await executor.execute(request(ofTenant(rev, 'first'), { input: { ...request(rev).input, params: { id: 'a' } } })))).toBe('a');
    const began = performance.now();
    const second = await executor.execute(request(ofTenant(rev, 'second'), { timeoutMs: 300, input: { ...request(rev).input, params: { id: 'b' } } }));
    expect(performance.now() - began).toBeGreaterThan(300); // it did wait longer than its deadline…
    expect(resultOf(second)).toBe('b'); // …and ran
  }, 20_000);
});
