// Component binding (spec, Versioning): Endpoints that follow the latest revision are re-validated
// when the component gets a new active revision; pinned ones are untouched; unknown digests refused.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform();
});
afterAll(() => p.close());

test('a new active revision re-validates followers, not pinned Endpoints', async () => {
  const c = await p.json<Record<string, any>>('POST', '/api/v1/components', { body: { name: 'calc', kind: 'lowcode', elements: [{ name: 'sum', code: 'return 1;' }] } });
  const digest = c.body.activeRevision.digest;
  const follower = await p.json<Record<string, any>>('POST', '/api/v1/endpoints', { body: { name: 'f', method: 'GET', path: '/follow', componentId: c.body.id, popResult: 'sum' } });
  const pinned = await p.json<Record<string, any>>('POST', '/api/v1/endpoints', { body: { name: 'p', method: 'GET', path: '/pinned', componentId: c.body.id, componentDigest: digest, popResult: 'sum' } });
  expect(follower.body.contractStatus.valid).toBe(true);
  expect(pinned.body.contractStatus.valid).toBe(true);

  // The new revision no longer produces `sum`.
  const u = await p.json<Record<string, any>>('PATCH', `/api/v1/components/${c.body.id}`, { body: { elements: [{ name: 'total', code: 'return 2;' }] } });
  expect(u.status).toBe(200);
  const f = await p.json<Record<string, any>>('GET', `/api/v1/endpoints/${follower.body.id}`);
  expect(f.body.contractStatus.valid).toBe(false);
  expect(f.body.contractStatus.errors).toEqual([expect.objectContaining({ code: 'POP_RESULT_UNKNOWN', pointer: '/popResult' })]);
  const pin = await p.json<Record<string, any>>('GET', `/api/v1/endpoints/${pinned.body.id}`);
  expect(pin.body.contractStatus).toEqual(pinned.body.contractStatus);
  expect(pin.body.componentDigest).toBe(digest);

  // An update that does not touch the binding keeps the pin.
  const renamed = await p.json<Record<string, any>>('PATCH', `/api/v1/endpoints/${pinned.body.id}`, { body: { name: 'renamed' } });
  expect(renamed.body.componentDigest).toBe(digest);
  // Unpinning follows the latest revision again.
  const unpinned = await p.json<Record<string, any>>('PATCH', `/api/v1/endpoints/${pinned.body.id}`, { body: { componentDigest: null } });
  expect(unpinned.body.componentDigest).toBeUndefined();
  expect(unpinned.body.contractStatus.valid).toBe(false);
});

test('a digest sent in capitals names the same revision (stored in lower case), for the component and a guard', async () => {
  const c = await p.json<Record<string, any>>('POST', '/api/v1/components', { body: { name: 'caps', kind: 'lowcode', elements: [{ name: 'a', code: 'return 1;' }] } });
  const v = await p.json<Record<string, any>>('POST', '/api/v1/components', { body: { name: 'caps-guard', kind: 'json-validator', schema: { type: 'object' } } });
  const digest: string = c.body.activeRevision.digest;
  const shout = (d: string) => `SHA256:${d.slice('sha256:'.length).toUpperCase()}`;
  const e = await p.json<Record<string, any>>('POST', '/api/v1/endpoints', {
    body: { name: 'caps', method: 'POST', path: '/caps', componentId: c.body.id, componentDigest: shout(digest), guard: { type: 'component', componentId: v.body.id, componentDigest: shout(v.body.activeRevision.digest) } },
  });
  expect(e.status).toBe(201);
  expect(e.body.componentDigest).toBe(digest);
  expect(e.body.guard.componentDigest).toBe(v.body.activeRevision.digest);
  expect(e.body.contractStatus.valid).toBe(true);
});

test('an unknown componentDigest is refused at create and PATCH with 422 UNKNOWN_DIGEST', async () => {
  const c = await p.json<Record<string, any>>('POST', '/api/v1/components', { body: { name: 'calc2', kind: 'lowcode', elements: [{ name: 'a', code: 'return 1;' }] } });
  const bogus = `sha256:${'0'.repeat(64)}`;
  const r = await p.json<Record<string, any>>('POST', '/api/v1/endpoints', { body: { name: 'x', method: 'GET', path: '/digest', componentId: c.body.id, componentDigest: bogus } });
  expect(r.status).toBe(422);
  expect(r.body).toMatchObject({ code: 'UNKNOWN_DIGEST', errors: [{ pointer: '/componentDigest' }] });
  const ok = await p.json<Record<string, any>>('POST', '/api/v1/endpoints', { body: { name: 'x', method: 'GET', path: '/digest', componentId: c.body.id } });
  const patched = await p.json<Record<string, any>>('PATCH', `/api/v1/endpoints/${ok.body.id}`, { body: { componentDigest: bogus } });
  expect(patched.status).toBe(422);
  expect(patched.body.code).toBe('UNKNOWN_DIGEST');
  // A digest that is not even well formed names no revision either.
  for (const digest of ['sha256:abc', 'sha256:deadbeef', 'md5:0']) {
    const malformed = await p.json<Record<string, any>>('PATCH', `/api/v1/endpoints/${ok.body.id}`, { body: { componentDigest: digest } });
    expect(malformed.status).toBe(422);
    expect(malformed.body).toMatchObject({ code: 'UNKNOWN_DIGEST', errors: [{ pointer: '/componentDigest' }] });
  }
  const guarded = await p.json<Record<string, any>>('PATCH', `/api/v1/endpoints/${ok.body.id}`, { body: { guard: { type: 'component', componentId: c.body.id, componentDigest: 'sha256:00' } } });
  expect(guarded.status).toBe(422);
  expect(guarded.body).toMatchObject({ code: 'UNKNOWN_DIGEST', errors: [{ pointer: '/guard/componentDigest' }] });
  expect((await p.json<Record<string, any>>('GET', `/api/v1/endpoints/${ok.body.id}`)).body.componentDigest ?? null).toBeNull();
  // Refused together with the body's other violations, not after them.
  const both = await p.json<Record<string, any>>('POST', '/api/v1/endpoints', { body: { name: 'x', method: 'GET', path: '/x/:a/:a', componentId: c.body.id, componentDigest: bogus } });
  expect(both.status).toBe(422);
  expect(both.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/componentDigest', '/path']);
  const bothPatched = await p.json<Record<string, any>>('PATCH', `/api/v1/endpoints/${ok.body.id}`, { body: { timeoutMs: 0, componentDigest: bogus } });
  expect(bothPatched.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/componentDigest', '/timeoutMs']);
  const knownDigest = await p.json<Record<string, any>>('PATCH', `/api/v1/endpoints/${ok.body.id}`, { body: { timeoutMs: 0, componentDigest: c.body.activeRevision.digest } });
  expect(knownDigest.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/timeoutMs']);
  // A digest without a component names nothing: refused too, at create and at PATCH.
  const alone = await p.json<Record<string, any>>('POST', '/api/v1/endpoints', { body: { name: 'x', method: 'GET', path: '/digest-alone', componentDigest: c.body.activeRevision.digest, staticResponse: { status: 200 } } });
  expect(alone.status).toBe(422);
  expect(alone.body).toMatchObject({ code: 'UNKNOWN_DIGEST', errors: [{ pointer: '/componentDigest' }] });
  const statik = await p.json<Record<string, any>>('POST', '/api/v1/endpoints', { body: { name: 'x', method: 'GET', path: '/digest-alone', staticResponse: { status: 200 } } });
  expect(statik.status).toBe(201);
  const pinnedNothing = await p.json<Record<string, any>>('PATCH', `/api/v1/endpoints/${statik.body.id}`, { body: { componentDigest: c.body.activeRevision.digest } });
  expect(pinnedNothing.status).toBe(422);
  expect(pinnedNothing.body.code).toBe('UNKNOWN_DIGEST');
});

test('a lowcode popResult may name a result that only api.result produces (a warning); without api.result it is unknown', async () => {
  const c = await p.json<Record<string, any>>('POST', '/api/v1/components', { body: { name: 'multi', kind: 'lowcode', elements: [{ name: 'a', code: 'api.result("extra", "E"); return 1;' }] } });
  const e = await p.json<Record<string, any>>('POST', '/api/v1/endpoints', { body: { name: 'px', method: 'GET', path: '/px', componentId: c.body.id, popResult: 'extra' } });
  expect(e.body.contractStatus).toMatchObject({ valid: true, errors: [], warnings: [expect.objectContaining({ code: 'POP_RESULT_UNDECLARED', pointer: '/popResult' })] });
  expect((await p.json('POST', `/api/v1/endpoints/${e.body.id}/activate`)).status).toBe(200);
  const plain = await p.json<Record<string, any>>('POST', '/api/v1/components', { body: { name: 'plain', kind: 'lowcode', elements: [{ name: 'a', code: 'return 1;' }] } });
  const bad = await p.json<Record<string, any>>('POST', '/api/v1/endpoints', { body: { name: 'py', method: 'GET', path: '/py', componentId: plain.body.id, popResult: 'extra' } });
  expect(bad.body.contractStatus.errors).toEqual([expect.objectContaining({ code: 'POP_RESULT_UNKNOWN', pointer: '/popResult' })]);
});

test('a digest of a component in another workspace is unknown, as the component itself is', async () => {
  const ws = await p.json<{ id: string }>('POST', '/api/v1/workspaces', { body: { name: 'digest-elsewhere' } });
  const c = await p.json<Record<string, any>>('POST', '/api/v1/components', { body: { name: 'home', kind: 'lowcode', elements: [{ name: 'a', code: 'return 1;' }] } });
  const real = c.body.latestRevision.digest as string;
  for (const digest of [real, `sha256:${'0'.repeat(64)}`]) {
    const r = await p.json<Record<string, any>>('POST', '/api/v1/endpoints', { body: { name: 'x', method: 'GET', path: `/foreign-${digest.slice(-6)}`, workspaceId: ws.body.id, componentId: c.body.id, componentDigest: digest } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'UNKNOWN_DIGEST', errors: [{ pointer: '/componentDigest' }] });
  }
});
