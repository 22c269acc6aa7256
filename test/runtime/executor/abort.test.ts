// An invocation whose caller gives up (ExecutionRequest.signal: an agent run cancelled mid tool
// call) ends as its deadline would: answered at once, its Worker terminated, so the revision's
// next invocation is served by a fresh Worker rather than queued behind code that never stops.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createExecutor, type Executor } from '../../../runtime/executor/index.ts';
import { lowcode, request } from './helpers.ts';

let executor: Executor;
beforeAll(async () => {
  executor = await createExecutor({ isolation: 'worker', log: () => {} });
});
afterAll(() => executor.close());

test('aborting an invocation stuck in a loop answers it within a second and terminates its Worker', async () => {
  const revision = lowcode({ name: 'out', code: "if (api.input().body.spin) { while (true) {} } return 'fresh';" });
  const controller = new AbortController();
  const started = performance.now();
  const stuck = executor.execute(request(revision, { timeoutMs: 60_000, signal: controller.signal, input: { ...request(revision).input, body: { spin: true } } }));
  await Bun.sleep(300);
  controller.abort();
  const outcome = await stuck;
  expect(performance.now() - started).toBeLessThan(2000);
  expect(outcome).toMatchObject({ kind: 'failed', code: 'EXECUTION_TIMEOUT' });
  const next = await executor.execute(request(revision, { timeoutMs: 5000, input: { ...request(revision).input, body: { spin: false } } }));
  expect(next.kind).toBe('results');
});
