// Configured staticResponse headers: the platform's own headers (x-svc-oid, x-execution-id, x-svc-*)
// are never forged by any spelling, and a header the runtime could not send is refused at
// create/PATCH (422 with its pointer) instead of failing every invocation.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startStack, type Stack } from '../helpers/stack.ts';
import { prepareStatic, staticResponse } from '../../runtime/respond.ts';

let s: Stack;
let invoker: { id: string; key: string };
beforeAll(async () => {
  s = await startStack();
  invoker = await s.principal(['ENDPOINT_INVOKE']);
});
afterAll(() => s.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let n = 0;
const uniquePath = () => `/static-headers/${++n}`;

/** The Endpoints stored under `name` (a unique name per case, so "nothing stored" is checkable). */
async function storedNamed(name: string): Promise<unknown[]> {
  const r = await s.api('GET', `/api/v1/endpoints?filter[field]=name&filter[op]=eq&filter[value]=${encodeURIComponent(name)}`);
  expect(r.status).toBe(200);
  return r.body.data;
}

describe('platform headers in a staticResponse', () => {
  const forged = { 'X-Svc-Oid': 'forged-oid', 'X-EXECUTION-ID': 'forged-exec', 'x-Svc-Debug': 'internal', 'X-Custom': 'kept' };

  test('any spelling of x-svc-oid, x-execution-id or another x-svc-* name never reaches the response; the incoming oid is continued', async () => {
    const path = uniquePath();
    await s.endpoint({ method: 'GET', path, staticResponse: { status: 200, headers: forged, body: { ok: true } } });
    const r = await s.invoke('GET', path, { key: invoker.key, headers: { 'x-svc-oid': 'trace-forge-1' } });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ ok: true });
    expect(r.headers.get('x-svc-oid')).toBe('trace-forge-1');
    expect(r.headers.get('x-execution-id')).toMatch(UUID);
    expect(r.headers.get('x-svc-debug')).toBeNull();
    expect(r.headers.get('x-custom')).toBe('kept');
    expect(r.headers.get('content-type')).toBe('application/json');
    expect([...r.headers.keys()].filter((k) => k.startsWith('x-svc-') || k === 'x-execution-id').sort()).toEqual(['x-execution-id', 'x-svc-oid']);
  });

  test('without an incoming oid the platform makes one, and it is not the configured value', async () => {
    const path = uniquePath();
    await s.endpoint({ method: 'GET', path, staticResponse: { status: 202, headers: forged, body: 'x' } });
    const r = await s.invoke('GET', path, { key: invoker.key });
    expect(r.status).toBe(202);
    expect(await r.json()).toBe('x');
    const oid = r.headers.get('x-svc-oid');
    expect(oid).toBeTruthy();
    expect(oid).not.toContain('forged');
    expect(oid).not.toContain(',');
    expect(r.headers.get('x-execution-id')).toMatch(UUID);
    expect(r.headers.get('x-execution-id')).not.toBe(oid);
  });

  test('an invalid incoming oid is replaced, not continued, even when a header is configured', async () => {
    const path = uniquePath();
    await s.endpoint({ method: 'GET', path, staticResponse: { status: 200, headers: forged } });
    const r = await s.invoke('GET', path, { key: invoker.key, headers: { 'x-svc-oid': 'bad oid!' } });
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('');
    const oid = r.headers.get('x-svc-oid');
    expect(oid).not.toBe('bad oid!');
    expect(oid).not.toContain('forged');
    expect(r.headers.get('x-execution-id')).toMatch(UUID);
  });

  test('a forging header added by PATCH to an active Endpoint is dropped once the index is rebuilt', async () => {
    const path = uniquePath();
    const e = await s.endpoint({ method: 'GET', path, staticResponse: { status: 200, body: 'before' } });
    const patched = await s.api('PATCH', `/api/v1/endpoints/${e.id}`, { version: e.version, staticResponse: { status: 200, headers: { 'X-SVC-OID': 'forged', 'x-execution-ID': 'forged', 'x-after': 'yes' }, body: 'after' } });
    expect(patched.status).toBe(200);
    expect(patched.body.staticResponse.headers).toEqual({ 'X-SVC-OID': 'forged', 'x-execution-ID': 'forged', 'x-after': 'yes' });
    const r = await s.invoke('GET', path, { key: invoker.key, headers: { 'x-svc-oid': 'trace-patch' } });
    expect(await r.json()).toBe('after');
    expect(r.headers.get('x-after')).toBe('yes');
    expect(r.headers.get('x-svc-oid')).toBe('trace-patch');
    expect(r.headers.get('x-execution-id')).toMatch(UUID);
  });

  test('content-type names compare case-insensitively: two spellings collapse into the last', async () => {
    const text = uniquePath();
    await s.endpoint({ method: 'GET', path: text, staticResponse: { status: 200, headers: { 'Content-Type': 'application/json', 'CONTENT-TYPE': 'text/plain' }, body: 'plain' } });
    const r = await s.invoke('GET', text, { key: invoker.key });
    expect(r.headers.get('content-type')).toBe('text/plain');
    expect(await r.text()).toBe('plain');

    const empty = uniquePath();
    await s.endpoint({ method: 'GET', path: empty, staticResponse: { status: 204, headers: { 'Content-Type': 'text/plain', 'content-type': 'text/csv' }, body: 'never' } });
    const none = await s.invoke('GET', empty, { key: invoker.key });
    expect(none.status).toBe(204);
    expect(none.headers.get('content-type')).toBeNull();
    expect(await none.text()).toBe('');
  });
});

describe('rows stored before the header rules', () => {
  test('a header the runtime cannot send is skipped when the index is built, so the response still forms', async () => {
    const prepared = prepareStatic({ status: 201, headers: { 'X-A': 'a\r\nInjected: 1', 'X B': 'v', 'X-Wide': '€', 'X-Ok': 'ok', 'X-Svc-Oid': 'forged' }, body: { ok: true } });
    expect(prepared).toEqual({ status: 201, body: '{"ok":true}', headers: { 'X-Ok': 'ok', 'content-type': 'application/json' } });
    const r = staticResponse(prepared, { oid: 'oid-1', executionId: 'exec-1' });
    expect(r.status).toBe(201);
    expect([...r.headers]).toEqual([['content-type', 'application/json'], ['x-execution-id', 'exec-1'], ['x-ok', 'ok'], ['x-svc-oid', 'oid-1']]);
    expect(await r.json()).toEqual({ ok: true });
  });
});

describe('header syntax is checked at create and PATCH', () => {
  const badValues: [string, string][] = [
    ['CR LF', 'a\r\nInjected: 1'],
    ['LF', 'a\nb'],
    ['CR', 'a\rb'],
    ['NUL', 'a\u0000b'],
    ['another control character', 'a\u0001b'],
    ['DEL', 'a\u007fb'],
    ['a character past Latin-1', 'a€b'],
  ];
  const badNames = ['X A', 'X:A', 'a(b', 'é', 'a/b', '', 'x'.repeat(101)];
  const pointerOf = (name: string) => `/staticResponse/headers/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;

  const expectRefused = (r: { status: number; body: any; headers: Headers }, pointers: string[]) => {
    expect(r.status).toBe(422);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    expect(r.body.code).toBe('VALIDATION_FAILED');
    expect(r.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([...pointers].sort());
  };

  test.each(badValues)('a value with %s → 422 at its pointer on create; nothing stored', async (_label, value) => {
    const name = `bad value ${crypto.randomUUID()}`;
    const r = await s.api('POST', '/api/v1/endpoints', { name, method: 'GET', path: uniquePath(), staticResponse: { status: 200, headers: { 'X-Ok': 'fine', 'X-A': value } } });
    expectRefused(r, ['/staticResponse/headers/X-A']);
    expect(await storedNamed(name)).toEqual([]);
  });

  test.each(badNames.map((name) => [JSON.stringify(name).slice(0, 20), name]))('a header name %s → 422 at its pointer on create; nothing stored', async (_label, header) => {
    const name = `bad name ${crypto.randomUUID()}`;
    const r = await s.api('POST', '/api/v1/endpoints', { name, method: 'GET', path: uniquePath(), staticResponse: { status: 200, headers: { [header]: 'v' } } });
    expectRefused(r, [pointerOf(header)]);
    expect(await storedNamed(name)).toEqual([]);
  });

  test('every bad header is reported at once, alongside other violations', async () => {
    const name = `several ${crypto.randomUUID()}`;
    const r = await s.api('POST', '/api/v1/endpoints', { name, method: 'GET', path: '/a//b', staticResponse: { status: 200, headers: { 'X A': 'v', 'X-B': 'b\r\n', 'X-Fine': 'ok' } } });
    expectRefused(r, ['/path', '/staticResponse/headers/X A', '/staticResponse/headers/X-B']);
    expect(await storedNamed(name)).toEqual([]);
  });

  test('PATCH with a bad value or name → 422 at its pointer; the stored definition and the served response are unchanged', async () => {
    const path = uniquePath();
    const e = await s.endpoint({ method: 'GET', path, staticResponse: { status: 200, headers: { 'X-A': 'original' }, body: 'served' } });
    const before = await s.api('GET', `/api/v1/endpoints/${e.id}`);
    expect(before.status).toBe(200);
    for (const [_label, value] of badValues) {
      const r = await s.api('PATCH', `/api/v1/endpoints/${e.id}`, { version: e.version, staticResponse: { status: 200, headers: { 'X-A': value }, body: 'changed' } });
      expectRefused(r, ['/staticResponse/headers/X-A']);
    }
    for (const header of badNames) {
      const r = await s.api('PATCH', `/api/v1/endpoints/${e.id}`, { staticResponse: { status: 200, headers: { [header]: 'v' }, body: 'changed' } });
      expectRefused(r, [pointerOf(header)]);
    }
    const after = await s.api('GET', `/api/v1/endpoints/${e.id}`);
    expect(after.body).toEqual(before.body);
    expect(after.body).toMatchObject({ version: e.version, status: 'active', staticResponse: { status: 200, headers: { 'X-A': 'original' }, body: 'served' } });
    const served = await s.invoke('GET', path, { key: invoker.key });
    expect(served.status).toBe(200);
    expect(served.headers.get('x-a')).toBe('original');
    expect(await served.json()).toBe('served');
  });

  test('what HTTP allows is accepted and served as configured: every token character, tabs, Latin-1, an empty value', async () => {
    const path = uniquePath();
    const headers = { "x!#$%&'*+.^_`|~-9Z": 'v', 'X-Tab': 'a\tb', 'X-Latin': 'café', 'X-Empty': '' };
    const name = `fine ${crypto.randomUUID()}`;
    const created = await s.api('POST', '/api/v1/endpoints', { name, method: 'GET', path, staticResponse: { status: 200, headers, body: 1 } });
    expect(created.status).toBe(201);
    expect(created.body.staticResponse.headers).toEqual(headers);
    expect(await storedNamed(name)).toMatchObject([{ id: created.body.id, staticResponse: { headers } }]);
    expect((await s.api('POST', `/api/v1/endpoints/${created.body.id}/activate`)).status).toBe(200);
    const r = await s.invoke('GET', path, { key: invoker.key });
    expect(r.status).toBe(200);
    expect(await r.json()).toBe(1);
    expect(r.headers.get("x!#$%&'*+.^_`|~-9z")).toBe('v');
    expect(r.headers.get('x-tab')).toBe('a\tb');
    expect(r.headers.get('x-empty')).toBe('');
    // Latin-1 travels as one octet per character; fetch reads it back the same way.
    expect(r.headers.get('x-latin')).toBe('café');
  });
});
