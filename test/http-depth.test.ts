// Pathologically nested JSON is refused cleanly on both origins and never takes a server down.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startStack, type Stack } from './helpers/stack.ts';
import { nestsDeeperThan } from '../src/core/http/json-depth.ts';

let s: Stack;
beforeAll(async () => {
  s = await startStack();
});
afterAll(() => s.close());

test('the depth scan ignores brackets inside strings and escapes', () => {
  expect(nestsDeeperThan('{"a":"[[[[[[[[\\"[[[["}', 2)).toBe(false);
  expect(nestsDeeperThan('[[[1]]]', 2)).toBe(true);
  expect(nestsDeeperThan('[[[1]]]', 3)).toBe(false);
});

test('control plane: a 100,000-deep body → 400, the agent unchanged', async () => {
  const a = await s.api('POST', '/api/v1/agents', { name: 'deep' });
  const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
  const r = await fetch(`${s.baseUrl}/api/v1/agents/${a.body.id}`, { method: 'PATCH', headers: { authorization: 'Bearer sk-test-admin-key-0123456789abcdefghij', 'content-type': 'application/json' }, body: `{"metadata":${deep}}` });
  expect(r.status).toBe(400);
  expect(((await r.json()) as { code: string }).code).toBe('BAD_REQUEST');
  expect((await s.api('GET', `/api/v1/agents/${a.body.id}`)).body.version).toBe(0);
});

test('runtime: deep input → the validation-failure answer or 400, never 500', async () => {
  const c = await s.api('POST', '/api/v1/components', { name: 'depth', kind: 'lowcode', elements: [{ name: 'a', code: 'return 1;' }] });
  await s.endpoint({ method: 'POST', path: '/deep', componentId: c.body.id, popResult: 'a' });
  await s.endpoint({ method: 'POST', path: '/deep-guarded', componentId: c.body.id, popResult: 'a', guard: { type: 'inline', schema: {} }, validationFailure: { status: 422, body: { bad: true } } });
  const deep = '['.repeat(100_000) + ']'.repeat(100_000);
  const plain = await s.invoke('POST', '/deep', { raw: deep, headers: { 'content-type': 'application/json' } });
  expect(plain.status).toBe(400);
  const guarded = await s.invoke('POST', '/deep-guarded', { raw: deep, headers: { 'content-type': 'application/json' } });
  expect(guarded.status).toBe(422);
  expect((await s.invoke('POST', '/deep', { body: [[1]] })).status).toBe(200);
});
