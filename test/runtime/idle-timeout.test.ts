// A component may run for its whole deadline while the connection carries nothing: the runtime
// keeps that request's connection open past the server's idle timeout (1 s here; Bun's default is
// 10 s, below the default deadline), so the caller gets the result or the 504, never a closed socket.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startStack, type Stack } from '../helpers/stack.ts';

let s: Stack;
beforeAll(async () => {
  s = await startStack({}, { runtimeIdleTimeout: 1 });
  const sleeper = await s.api('POST', '/api/v1/components', {
    name: 'sleeper',
    kind: 'lowcode',
    elements: [{ name: 'slept', code: 'const ms = Number(input.query.ms); await new Promise((r) => setTimeout(r, ms)); return ms;' }],
  });
  if (sleeper.status !== 201) throw new Error(JSON.stringify(sleeper.body));
  const id = (sleeper.body as { id: string }).id;
  await s.endpoint({ method: 'GET', path: '/patient', componentId: id, popResult: 'slept', timeoutMs: 6000 });
  await s.endpoint({ method: 'GET', path: '/hasty', componentId: id, popResult: 'slept', timeoutMs: 1500 });
});
afterAll(() => s.close());

test('an invocation silent for longer than the idle timeout but inside its deadline is answered', async () => {
  const r = await s.invoke('GET', '/patient?ms=2500');
  expect(r.status).toBe(200);
  expect(await r.json()).toBe(2500);
});

test('an invocation past its deadline gets its 504, not a closed connection', async () => {
  const r = await s.invoke('GET', '/hasty?ms=4000');
  expect(r.status).toBe(504);
  expect(((await r.json()) as { code: string }).code).toBe('EXECUTION_TIMEOUT');
});
