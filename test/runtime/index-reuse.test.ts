// Every change rebuilds the runtime's whole index; guards whose schema did not change are reused
// from the index served, not compiled again (runtime/guard/cache.ts), and a changed one is new.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startStack, type Stack } from '../helpers/stack.ts';

let s: Stack;
beforeAll(async () => {
  s = await startStack();
});
afterAll(async () => {
  await s.close();
});

const guardOf = (method: string, path: string) => s.runtime.index.current?.router.match(method, path)?.value.guard ?? null;

test('a rebuild reuses the unchanged guards and compiles a changed one', async () => {
  const schema = { type: 'object', properties: { n: { type: 'integer', maximum: 5 } }, required: ['n'], additionalProperties: false };
  const a = await s.endpoint({ method: 'POST', path: '/reuse/a', guard: { type: 'inline', schema }, staticResponse: { status: 200, body: { a: true } } });
  await s.endpoint({ method: 'POST', path: '/reuse/same', guard: { type: 'inline', schema }, staticResponse: { status: 200, body: { same: true } } });
  const before = guardOf('POST', '/reuse/a');
  expect(before).not.toBeNull();
  // Two Endpoints with the same schema share one compiled guard.
  expect(guardOf('POST', '/reuse/same')).toBe(before);

  const versionBefore = s.runtime.index.current!.version;
  await s.endpoint({ method: 'GET', path: '/reuse/other', staticResponse: { status: 200, body: {} } });
  expect(s.runtime.index.current!.version).toBeGreaterThan(versionBefore);
  expect(guardOf('POST', '/reuse/a')).toBe(before);

  // The guard changes: a new compiled guard, and it is the one enforced.
  expect((await s.api('POST', `/api/v1/endpoints/${a.id}/disable`)).status).toBe(200);
  const changed = { ...schema, properties: { n: { type: 'integer', maximum: 500 } } };
  const patched = await s.api('PATCH', `/api/v1/endpoints/${a.id}`, { guard: { type: 'inline', schema: changed }, version: (await s.api('GET', `/api/v1/endpoints/${a.id}`)).body.version });
  expect(patched.status).toBe(200);
  expect((await s.api('POST', `/api/v1/endpoints/${a.id}/activate`)).status).toBe(200);
  expect(guardOf('POST', '/reuse/a')).not.toBe(before);
  expect(guardOf('POST', '/reuse/same')).toBe(before);
  expect((await s.invoke('POST', '/reuse/a', { body: { n: 50 } })).status).toBe(200);
  expect((await s.invoke('POST', '/reuse/same', { body: { n: 50 } })).status).toBe(400);
});

test('a rebuild keeps unchanged definitions as they were decoded (and their static response as made); a changed one is read again', async () => {
  const body = { items: Array.from({ length: 100 }, (_, i) => ({ i })) };
  const big = await s.endpoint({ method: 'GET', path: '/reuse/big', staticResponse: { status: 200, body } });
  const served = () => s.runtime.index.current!.router.match('GET', '/reuse/big')!.value;
  const before = served();
  await s.endpoint({ method: 'GET', path: '/reuse/another', staticResponse: { status: 200, body: {} } });
  const after = served();
  expect(after).not.toBe(before); // a new index
  expect(after.definition).toBe(before.definition);
  expect(after.prepared).toBe(before.prepared);

  // Its own change is read again, and served.
  expect((await s.api('POST', `/api/v1/endpoints/${big.id}/disable`)).status).toBe(200);
  const version = (await s.api('GET', `/api/v1/endpoints/${big.id}`)).body.version;
  expect((await s.api('PATCH', `/api/v1/endpoints/${big.id}`, { staticResponse: { status: 200, body: { changed: true } }, version })).status).toBe(200);
  expect((await s.api('POST', `/api/v1/endpoints/${big.id}/activate`)).status).toBe(200);
  expect(served().definition).not.toBe(before.definition);
  expect(served().definition.staticResponse).toEqual({ status: 200, body: { changed: true } });
  const r = await s.invoke('GET', '/reuse/big');
  expect(r.status).toBe(200);
  expect(await r.json()).toEqual({ changed: true });
});
