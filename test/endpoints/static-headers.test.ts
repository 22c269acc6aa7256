// Configured staticResponse headers: the platform's own headers (x-svc-oid, x-execution-id, x-svc-*)
// are never forged by any spelling, a header the runtime could not send or a hop-by-hop one is
// refused at create/PATCH (422 with its pointer), and one stored before those rules is left out.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startStack, type Stack } from '../helpers/stack.ts';
import { staticResponse } from '../../runtime/respond.ts';
import { prepareStatic } from '../../runtime/index/static-response.ts';
import { EndpointStore } from '../../src/core/definitions/store.ts';
import { bumpIndexVersion } from '../../src/core/definitions/index-version.ts';

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

describe('hop-by-hop headers (RFC 9110 §7.6.1) belong to the connection, not to a static response', () => {
  const hopByHop = ['Connection', 'keep-alive', 'UPGRADE', 'Proxy-Authenticate', 'PROXY-CONNECTION', 'proxy-a~b', 'te', 'Trailer', 'Transfer-Encoding', 'tRaNsFeR-eNcOdInG'];
  const pointerOf = (name: string) => `/staticResponse/headers/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;

  test.each(hopByHop)('%s → 422 VALIDATION_FAILED at its pointer on create; nothing stored', async (header) => {
    const name = `hop ${crypto.randomUUID()}`;
    const r = await s.api('POST', '/api/v1/endpoints', { name, method: 'GET', path: uniquePath(), staticResponse: { status: 200, headers: { 'X-Ok': 'fine', [header]: 'v' } } });
    expect(r.status).toBe(422);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    expect(r.body).toMatchObject({ code: 'VALIDATION_FAILED', oid: r.headers.get('x-svc-oid') });
    expect(r.body.errors).toEqual([{ pointer: pointerOf(header), message: expect.stringContaining('hop-by-hop') }]);
    expect(await storedNamed(name)).toEqual([]);
  });

  test('PATCH setting several → 422 listing each; the stored definition is unchanged', async () => {
    const e = await s.endpoint({ method: 'GET', path: uniquePath(), staticResponse: { status: 200, headers: { 'X-A': 'a' }, body: 'served' } });
    const r = await s.api('PATCH', `/api/v1/endpoints/${e.id}`, { version: e.version, staticResponse: { status: 200, headers: { Connection: 'close', 'Proxy-Authorization': 'Basic x', 'X-B': 'b' } } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('VALIDATION_FAILED');
    expect(r.body.errors.map((v: { pointer: string }) => v.pointer).sort()).toEqual(['/staticResponse/headers/Connection', '/staticResponse/headers/Proxy-Authorization']);
    const stored = await s.api('GET', `/api/v1/endpoints/${e.id}`);
    expect(stored.body).toMatchObject({ version: e.version, staticResponse: { headers: { 'X-A': 'a' }, body: 'served' } });
  });

  test('names that only resemble one are accepted and served', async () => {
    const path = uniquePath();
    const headers = { 'X-Connection': '1', Proxy: '2', 'X-Proxy-Id': '3', Tea: '4', Trailers: '5', 'Upgrade-Insecure-Requests': '6', 'Keep-Alive-Hint': '7' };
    const created = await s.api('POST', '/api/v1/endpoints', { name: 'resembles', method: 'GET', path, staticResponse: { status: 200, headers } });
    expect(created.status).toBe(201);
    expect((await s.api('POST', `/api/v1/endpoints/${created.body.id}/activate`)).status).toBe(200);
    const r = await s.invoke('GET', path, { key: invoker.key });
    for (const [name, value] of Object.entries(headers)) expect(r.headers.get(name)).toBe(value);
  });

  test('stored before the rule: the Endpoint serves without them (the connection stays open), validate warns, OpenAPI leaves them out', async () => {
    const path = uniquePath();
    const e = await s.endpoint({ method: 'GET', path, staticResponse: { status: 200, headers: { 'X-Ok': 'ok' }, body: { ok: true } } });
    // As a row written before the rule: straight into the database, then the index rebuilt.
    const legacy = { Connection: 'close', 'Transfer-Encoding': 'chunked', 'Proxy-Authenticate': 'Basic', Upgrade: 'h2c', 'X-Ok': 'ok' };
    const store = new EndpointStore(s.platform.db);
    const version = await s.platform.db.write(async (q) => {
      const current = (await store.get(e.id, q))!;
      expect(await store.compareAndSet(q, current.version, { ...current, staticResponse: { status: 200, headers: legacy, body: { ok: true } }, version: current.version + 1, updatedAt: new Date() })).not.toBeNull();
      return bumpIndexVersion(s.platform.db, q);
    });
    await s.platform.publisher.published(version);

    // Two requests on one connection: both answered (a served `Connection: close` ended it after the first).
    const url = new URL(s.runtimeUrl);
    const one = `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${invoker.key}\r\n\r\n`;
    const text = await exchange(Number(url.port), one + one, 2);
    const responses = text.split('HTTP/1.1 ').slice(1);
    expect(responses).toHaveLength(2);
    for (const response of responses) {
      const head = response.slice(0, response.indexOf('\r\n\r\n')).toLowerCase();
      expect(head.startsWith('200 ')).toBe(true);
      expect(head).toContain('\r\nx-ok: ok');
      expect(head).toContain('\r\ncontent-length: 11');
      for (const dropped of ['connection:', 'transfer-encoding:', 'proxy-authenticate:', 'upgrade:']) expect(head).not.toContain(`\r\n${dropped}`);
      expect(response.slice(response.indexOf('\r\n\r\n') + 4, response.indexOf('\r\n\r\n') + 15)).toBe('{"ok":true}');
    }

    const validated = await s.api('POST', `/api/v1/endpoints/${e.id}/validate`);
    expect(validated.status).toBe(200);
    expect(validated.body.valid).toBe(true);
    const warned = validated.body.warnings.filter((w: { code: string }) => w.code === 'STATIC_HEADER_DROPPED').map((w: { pointer: string }) => w.pointer).sort();
    expect(warned).toEqual(['/staticResponse/headers/Connection', '/staticResponse/headers/Proxy-Authenticate', '/staticResponse/headers/Transfer-Encoding', '/staticResponse/headers/Upgrade']);

    const doc = await s.api('GET', `/api/v1/endpoints/${e.id}/openapi`);
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths[path].get.responses['200'].headers).sort()).toEqual(['X-Ok', 'x-svc-oid']);

    // Still activatable (a warning, not an error): disabled and activated again, it serves the same.
    expect((await s.api('POST', `/api/v1/endpoints/${e.id}/disable`)).status).toBe(200);
    expect((await s.api('POST', `/api/v1/endpoints/${e.id}/activate`)).status).toBe(200);
    const again = await s.invoke('GET', path, { key: invoker.key });
    expect(again.status).toBe(200);
    expect(again.headers.get('x-ok')).toBe('ok');
    expect(again.headers.get('upgrade')).toBeNull();
  });

  test('prepareStatic leaves them out in any letter case', () => {
    const prepared = prepareStatic({ status: 200, headers: Object.fromEntries([...hopByHop.map((h) => [h, 'v']), ['X-Kept', 'k']]), body: 1 });
    expect(prepared.headers).toEqual({ 'X-Kept': 'k', 'content-type': 'application/json' });
  });
});

/** Writes `request` to the port and reads until `count` responses with a Content-Length body arrived, or the server closes. */
async function exchange(port: number, request: string, count: number): Promise<string> {
  const { promise, resolve } = Promise.withResolvers<string>();
  let text = '';
  const complete = () => {
    let at = 0;
    for (let i = 0; i < count; i++) {
      const head = text.indexOf('\r\n\r\n', at);
      const length = head === -1 ? undefined : /content-length: (\d+)/i.exec(text.slice(at, head))?.[1];
      if (length === undefined || text.length < head + 4 + Number(length)) return false;
      at = head + 4 + Number(length);
    }
    return true;
  };
  const socket = await Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: {
      data: (_s, chunk) => {
        text += new TextDecoder().decode(chunk);
        if (complete()) resolve(text);
      },
      close: () => resolve(text),
    },
  });
  socket.write(request);
  const received = await Promise.race([promise, Bun.sleep(5_000).then(() => text)]);
  socket.end();
  return received;
}
