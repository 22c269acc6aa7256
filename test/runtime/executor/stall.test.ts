// One invocation stuck in a synchronous loop holds every call queued behind it in its Worker, and
// they all fail with it when its deadline stops the Worker. Calls that arrive while it is stuck go
// to another of the tenant's hosts instead (placement.ts, WORKER_STALL_MS), and are answered.
import { afterAll, expect, test } from 'bun:test';
import { createExecutor } from '../../../runtime/executor/index.ts';
import { failureOf, lowcode, request, resultOf } from './helpers.ts';

const executor = await createExecutor({ isolation: 'process', hosts: 2, maxHosts: 4, hostsPerTenant: 2, log: () => {} });
afterAll(() => executor.close());

test('calls arriving while a Worker is stuck are answered on another host; only the stuck one times out', async () => {
  const spinner = lowcode({ name: 'default', code: 'if (api.input().query.spin) { for (;;) {} } return "quick";' });
  // The revision is warm on one host first.
  expect(resultOf(await executor.execute(request(spinner, { input: { ...request(spinner).input, query: {} } })))).toBe('quick');
  const stuck = executor.execute(request(spinner, { timeoutMs: 3_000, input: { ...request(spinner).input, query: { spin: '1' } } }));
  await Bun.sleep(500);
  const quick = await Promise.all(Array.from({ length: 3 }, () => executor.execute(request(spinner, { input: { ...request(spinner).input, query: {} } }))));
  // Had they queued behind the loop, they would have failed with it (502 when its Worker is stopped).
  expect(quick.map((o) => resultOf(o))).toEqual(['quick', 'quick', 'quick']);
  expect(failureOf(await stuck)).toMatchObject({ status: 504, code: 'EXECUTION_TIMEOUT' });
}, 30_000);
