// The endpoint runtime over real sockets: processing order, response modes, guards, limits,
// identity, headers, statistics and audit (component code runs in in-process Workers here;
// the sandboxed hosts have their own suites).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startStack, type Stack } from '../helpers/stack.ts';
import { activateDeployment, deployed as deployedVia } from '../helpers/deployments.ts';
import { SYSTEM_PRINCIPAL_ID } from '../../src/core/identity/roles.ts';

let s: Stack;
let invoker: { id: string; key: string };
beforeAll(async () => {
  s = await startStack();
  invoker = await s.principal(['ENDPOINT_INVOKE']);
});
afterAll(() => s.close());

async function lowcode(elements: { name: string; code: string; visible?: boolean }[]) {
  const r = await s.api('POST', '/api/v1/components', { name: `c${crypto.randomUUID().slice(0, 6)}`, kind: 'lowcode', elements });
  if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  return r.body as { id: string; activeRevision: { digest: string } };
}
const body = async (r: Response) => {
  const text = await r.text();
  return text ? JSON.parse(text) : null;
};

describe('headers, 404 and authentication', () => {
  test('a static response carries x-svc-oid and a distinct x-execution-id; no executor hop', async () => {
    await s.endpoint({ method: 'GET', path: '/static', staticResponse: { status: 202, headers: { 'x-custom': 'yes' }, body: { hello: 'world' } } });
    const r = await s.invoke('GET', '/static', { key: invoker.key, headers: { 'x-svc-oid': 'trace-1' } });
    expect(r.status).toBe(202);
    expect(await body(r)).toEqual({ hello: 'world' });
    expect(r.headers.get('x-svc-oid')).toBe('trace-1');
    expect(r.headers.get('x-custom')).toBe('yes');
    const exec = r.headers.get('x-execution-id');
    expect(exec).toMatch(/^[0-9a-f-]{36}$/);
    const again = await s.invoke('GET', '/static', { key: invoker.key });
    expect(again.headers.get('x-execution-id')).not.toBe(exec);
    expect(again.headers.get('x-svc-oid')).not.toBe(again.headers.get('x-execution-id'));
  });

  test('no matching active definition → 404 problem+json with x-svc-oid', async () => {
    const r = await s.invoke('GET', '/nothing/here', { key: invoker.key });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    expect((await body(r)).oid).toBe(r.headers.get('x-svc-oid'));
  });

  test('authentication comes first: no credential → 401 even for an unknown path', async () => {
    expect((await s.invoke('GET', '/static', { key: null })).status).toBe(401);
    expect((await s.invoke('GET', '/nothing', { key: null })).status).toBe(401);
    expect((await s.invoke('GET', '/static', { key: 'sk-wrong-key-0000000000000000000000000' })).status).toBe(401);
  });

  test('roles: ENDPOINT_INVOKE or INSTANCE_ADMIN; platform access off may still invoke; disabled may not', async () => {
    const agentOnly = await s.principal(['AGENT_ADMIN']);
    const r = await s.invoke('GET', '/static', { key: agentOnly.key });
    expect(r.status).toBe(403);
    expect((await s.invoke('GET', '/static')).status).toBe(202); // bootstrap INSTANCE_ADMIN
    const noAccess = await s.principal(['ENDPOINT_INVOKE'], { platformAccess: false });
    expect((await s.invoke('GET', '/static', { key: noAccess.key })).status).toBe(202);
    await s.api('PATCH', `/api/v1/users/${noAccess.id}`, { status: 'DISABLED' });
    expect((await s.invoke('GET', '/static', { key: noAccess.key })).status).toBe(401);
  });

  test('a service account must have platform access to invoke (a human user need not)', async () => {
    const account = await s.principal(['ENDPOINT_INVOKE'], { kind: 'SERVICE_ACCOUNT', platformAccess: false });
    const r = await s.invoke('GET', '/static', { key: account.key, headers: { 'x-svc-oid': 'sa-no-access' } });
    expect(r.status).toBe(403);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    expect(await body(r)).toMatchObject({ code: 'PLATFORM_ACCESS_DISABLED', oid: 'sa-no-access' });
    const allowed = await s.principal(['ENDPOINT_INVOKE'], { kind: 'SERVICE_ACCOUNT' });
    expect((await s.invoke('GET', '/static', { key: allowed.key })).status).toBe(202);
  });

  test('a cached key stops working the moment it expires, and at once when revoked', async () => {
    await s.endpoint({ method: 'GET', path: '/cached-key', staticResponse: { status: 200, body: 'ok' } });
    const user = await s.principal(['ENDPOINT_INVOKE']);
    const short = await s.api('POST', '/api/v1/api-keys', { principalId: user.id, name: 'short', expiresAt: new Date(Date.now() + 1000).toISOString() });
    expect(short.status).toBe(201);
    expect((await s.invoke('GET', '/cached-key', { key: short.body.key })).status).toBe(200); // now cached (2 s)
    await Bun.sleep(1200); // expired, still inside the cache lifetime
    expect((await s.invoke('GET', '/cached-key', { key: short.body.key })).status).toBe(401);

    const revoked = await s.api('POST', '/api/v1/api-keys', { principalId: user.id, name: 'revoked' });
    expect((await s.invoke('GET', '/cached-key', { key: revoked.body.key })).status).toBe(200);
    expect((await s.api('DELETE', `/api/v1/api-keys/${revoked.body.id}`)).status).toBe(204);
    expect((await s.invoke('GET', '/cached-key', { key: revoked.body.key })).status).toBe(401);
  });

  test('/healthz and /readyz answer GET and HEAD without a credential (HEAD with no body)', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const get = await fetch(s.runtimeUrl + path);
      expect(get.status).toBe(200);
      expect(get.headers.get('x-svc-oid')).toBeTruthy();
      const head = await fetch(s.runtimeUrl + path, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-type')).toBe('application/json');
      expect(await head.text()).toBe('');
    }
  });

  test('HEAD is answered as GET without a body; the component sees HEAD', async () => {
    await s.endpoint({ method: 'GET', path: '/head/static', staticResponse: { status: 200, headers: { 'cache-control': 'max-age=60' }, body: { ok: true } } });
    const head = await s.invoke('HEAD', '/head/static', { key: invoker.key, headers: { 'x-svc-oid': 'trace-head' } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(head.headers.get('content-type')).toBe('application/json');
    expect(head.headers.get('cache-control')).toBe('max-age=60');
    expect(head.headers.get('x-svc-oid')).toBe('trace-head');
    expect(head.headers.get('x-execution-id')).toMatch(/^[0-9a-f-]{36}$/);
    const c = await lowcode([{ name: 'm', code: 'const { method } = api.input(); if (method === "HEAD") api.throw(299); return method;' }]);
    await s.endpoint({ method: 'GET', path: '/head/component', componentId: c.id, popResult: 'm' });
    expect(await body(await s.invoke('GET', '/head/component', { key: invoker.key }))).toBe('GET');
    expect((await s.invoke('HEAD', '/head/component', { key: invoker.key })).status).toBe(299);
    // Only GET routes answer HEAD; a credential is checked first as for any invocation.
    await s.endpoint({ method: 'POST', path: '/head/post-only', staticResponse: { status: 201 } });
    expect((await s.invoke('HEAD', '/head/post-only', { key: invoker.key })).status).toBe(404);
    expect((await s.invoke('HEAD', '/head/static', { key: null })).status).toBe(401);
  });

  test('the runtime never serves control-plane paths', async () => {
    expect((await s.invoke('GET', '/api/v1/me')).status).toBe(404);
  });
});

describe('response modes', () => {
  test('popResult returns one named visible result; the component reads params, query, body and inputs', async () => {
    const c = await lowcode([
      { name: 'total', code: 'const i = api.input(); return { order: i.params.orderId, qty: i.body.qty * Number(i.query.times), tax: i.inputs.tax };' },
    ]);
    await s.endpoint({ method: 'POST', path: '/orders/:orderId', componentId: c.id, popResult: 'total', successStatus: 201, inputs: { tax: 0.2 } });
    const r = await s.invoke('POST', '/orders/A%2F7?times=3', { key: invoker.key, body: { qty: 2 } });
    expect(r.status).toBe(201);
    expect(await body(r)).toEqual({ order: 'A/7', qty: 6, tax: 0.2 });
  });

  test('template inputs reach the component whole, with or without a body, and a changed definition brings its new inputs', async () => {
    const c = await lowcode([{ name: 'in', code: 'const i = api.input(); return { keys: Object.keys(i), inputs: i.inputs, body: i.body ?? null };' }]);
    // Large enough to be serialized once and spliced in (the PATCH below brings small ones, serialized per call).
    const inputs = { text: 'line one\nline two\r\n\t"quoted" \\ back', unicode: 'zaï 東京 🙂', list: [1, { deep: [null, true] }], empty: {}, table: 'row;'.repeat(400) };
    const e = await s.endpoint({ method: 'POST', path: '/template-inputs', componentId: c.id, popResult: 'in', inputs });
    const keys = ['method', 'path', 'params', 'query', 'headers', 'inputs', 'body'];
    // A body sent with newlines between its tokens: spliced into the Worker's line as received.
    const sent = await s.invoke('POST', '/template-inputs', { key: invoker.key, raw: '{\n"a":\r\n1}', headers: { 'content-type': 'application/json' } });
    expect(sent.status).toBe(200);
    expect(await body(sent)).toEqual({ keys, inputs, body: { a: 1 } });
    expect(await body(await s.invoke('POST', '/template-inputs', { key: invoker.key }))).toEqual({ keys, inputs, body: null });
    const changed = await s.api('PATCH', `/api/v1/endpoints/${e.id}`, { inputs: { changed: true } });
    expect(changed.status).toBe(200);
    expect(await body(await s.invoke('POST', '/template-inputs', { key: invoker.key, body: {} }))).toEqual({ keys, inputs: { changed: true }, body: {} });
  });

  test('the result map holds every visible result, not the invisible ones', async () => {
    const c = await lowcode([
      { name: 'a', code: 'return 1;' },
      { name: 'secret', code: 'return results.a + 1;', visible: false },
      { name: 'b', code: 'api.result("extra", "x"); return results.secret * 10;' },
    ]);
    await s.endpoint({ method: 'GET', path: '/map', componentId: c.id });
    const r = await s.invoke('GET', '/map', { key: invoker.key });
    expect(r.status).toBe(200);
    expect(await body(r)).toEqual({ a: 1, b: 20, extra: 'x' });
  });

  test('noResult answers an empty body with the success status', async () => {
    const c = await lowcode([{ name: 'a', code: 'return 1;' }]);
    await s.endpoint({ method: 'DELETE', path: '/things/:id', componentId: c.id, noResult: true, successStatus: 204 });
    const r = await s.invoke('DELETE', '/things/9', { key: invoker.key });
    expect(r.status).toBe(204);
    expect(await r.text()).toBe('');
  });

  test('the 1 MiB result limit counts what the response carries: a large result popResult or noResult leaves out is fine', async () => {
    const c = await lowcode([
      { name: 'echo', code: 'return "x".repeat(1100000);' },
      { name: 'n', code: 'return 1;' },
    ]);
    await s.endpoint({ method: 'GET', path: '/limit/pop', componentId: c.id, popResult: 'n' });
    await s.endpoint({ method: 'GET', path: '/limit/none', componentId: c.id, noResult: true });
    await s.endpoint({ method: 'GET', path: '/limit/map', componentId: c.id });
    const popped = await s.invoke('GET', '/limit/pop', { key: invoker.key });
    expect(popped.status).toBe(200);
    expect(await body(popped)).toBe(1);
    const none = await s.invoke('GET', '/limit/none', { key: invoker.key });
    expect(none.status).toBe(200);
    expect(await none.text()).toBe('');
    const map = await s.invoke('GET', '/limit/map', { key: invoker.key });
    expect(map.status).toBe(502);
    expect((await body(map)).code).toBe('RESULT_TOO_LARGE');
  });

  test('a 204 (result map, api.throw or static) has no body and no content type', async () => {
    const c = await lowcode([{ name: 'a', code: 'return { ok: true };' }]);
    await s.endpoint({ method: 'GET', path: '/no-content/map', componentId: c.id, successStatus: 204 });
    const thrower = await lowcode([{ name: 'a', code: 'api.throw(204, { ignored: true });' }]);
    await s.endpoint({ method: 'GET', path: '/no-content/throw', componentId: thrower.id });
    await s.endpoint({ method: 'GET', path: '/no-content/static', staticResponse: { status: 204, body: { ignored: true } } });
    for (const path of ['/no-content/map', '/no-content/throw', '/no-content/static']) {
      const r = await s.invoke('GET', path, { key: invoker.key });
      expect(r.status).toBe(204);
      expect(r.headers.get('content-type')).toBeNull();
      expect(r.headers.get('x-execution-id')).toBeTruthy();
      expect(await r.text()).toBe('');
    }
  });

  test('legacyResults answers the legacy envelope', async () => {
    const c = await lowcode([{ name: 'a', code: 'return 1;' }, { name: 'hidden', code: 'return 2;', visible: false }]);
    await s.endpoint({ method: 'GET', path: '/legacy', componentId: c.id, legacyResults: true });
    const r = await s.invoke('GET', '/legacy', { key: invoker.key });
    expect(await body(r)).toEqual({ success: true, results: [{ name: 'a', value: 1 }], executionId: r.headers.get('x-execution-id') });
  });

  test('api.throw(status, body) answers exactly that, even a non-2xx', async () => {
    const c = await lowcode([{ name: 'a', code: 'api.throw(418, { reason: "teapot" }); return 1;' }]);
    await s.endpoint({ method: 'GET', path: '/teapot', componentId: c.id, popResult: 'a' });
    const r = await s.invoke('GET', '/teapot', { key: invoker.key });
    expect(r.status).toBe(418);
    expect(await body(r)).toEqual({ reason: 'teapot' });
  });

  test('api.throw(status) without a body answers an empty body; a 1xx status is a component error', async () => {
    const c = await lowcode([{ name: 'a', code: 'api.throw(409);' }]);
    await s.endpoint({ method: 'GET', path: '/throw-empty', componentId: c.id });
    const r = await s.invoke('GET', '/throw-empty', { key: invoker.key });
    expect(r.status).toBe(409);
    expect(r.headers.get('content-type')).toBeNull();
    expect(await r.text()).toBe('');
    for (const status of [100, 101, 199]) {
      const informational = await lowcode([{ name: 'a', code: `api.throw(${status}, { no: true });` }]);
      await s.endpoint({ method: 'GET', path: `/throw-${status}`, componentId: informational.id });
      const t = await s.invoke('GET', `/throw-${status}`, { key: invoker.key });
      expect(t.status).toBe(500);
      expect((await body(t)).code).toBe('COMPONENT_ERROR');
    }
  });

  test('an uncaught error → 500 COMPONENT_ERROR without a stack; a deadline → 504', async () => {
    const bad = await lowcode([{ name: 'a', code: 'throw new Error("boom");' }]);
    await s.endpoint({ method: 'GET', path: '/boom', componentId: bad.id, popResult: 'a' });
    const r = await s.invoke('GET', '/boom', { key: invoker.key });
    expect(r.status).toBe(500);
    const problem = await body(r);
    expect(problem).toMatchObject({ code: 'COMPONENT_ERROR' });
    expect(JSON.stringify(problem)).not.toContain(' at ');
    const slow = await lowcode([{ name: 'a', code: 'await new Promise((r) => setTimeout(r, 5000)); return 1;' }]);
    await s.endpoint({ method: 'GET', path: '/slow', componentId: slow.id, popResult: 'a', timeoutMs: 200 });
    const t = await s.invoke('GET', '/slow', { key: invoker.key });
    expect(t.status).toBe(504);
    expect((await body(t)).code).toBe('EXECUTION_TIMEOUT');
    expect((await s.invoke('GET', '/static', { key: invoker.key })).status).toBe(202);
  });
});

describe('input validation and limits', () => {
  const guard = { type: 'inline', schema: { type: 'object', properties: { qty: { type: 'integer', minimum: 1, description: 'q' } }, required: ['qty'], additionalProperties: false } };
  test('a guard failure answers the configured status and body; without one, 400 with violations', async () => {
    const c = await lowcode([{ name: 'ok', code: 'return api.input().body;' }]);
    await s.endpoint({ method: 'POST', path: '/guarded', componentId: c.id, popResult: 'ok', guard, validationFailure: { status: 422, body: { error: 'bad order' } } });
    await s.endpoint({ method: 'POST', path: '/guarded-default', componentId: c.id, popResult: 'ok', guard });
    expect(await body(await s.invoke('POST', '/guarded', { key: invoker.key, body: { qty: 2 } }))).toEqual({ qty: 2 });
    for (const sent of [{ qty: 0 }, { qty: 1, extra: true }, [], null]) {
      const r = await s.invoke('POST', '/guarded', { key: invoker.key, body: sent });
      expect(r.status).toBe(422);
      expect(await body(r)).toEqual({ error: 'bad order' });
    }
    const malformed = await s.invoke('POST', '/guarded', { key: invoker.key, raw: '{"qty":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(422);
    const d = await s.invoke('POST', '/guarded-default', { key: invoker.key, body: { qty: 0 } });
    expect(d.status).toBe(400);
    expect((await body(d)).errors).toEqual([expect.objectContaining({ pointer: '/qty' })]);
  });

  test('a json-validator component guard runs its schema in the runtime; a new revision applies at once', async () => {
    const v = await s.api('POST', '/api/v1/components', { name: `v${crypto.randomUUID().slice(0, 6)}`, kind: 'json-validator', schema: { type: 'object', properties: { sku: { type: 'string', maxLength: 8 } }, required: ['sku'] } });
    expect(v.status).toBe(201);
    const c = await lowcode([{ name: 'ok', code: 'return api.input().body.sku;' }]);
    await s.endpoint({ method: 'POST', path: '/sku', componentId: c.id, popResult: 'ok', guard: { type: 'component', componentId: v.body.id } });
    expect(await body(await s.invoke('POST', '/sku', { key: invoker.key, body: { sku: 'A1' } }))).toBe('A1');
    const bad = await s.invoke('POST', '/sku', { key: invoker.key, body: { sku: 'way-too-long' } });
    expect(bad.status).toBe(400);
    expect((await body(bad)).errors).toEqual([expect.objectContaining({ pointer: '/sku' })]);
    // Pinned to the first revision's digest, a guard keeps that schema whatever is saved later.
    await s.endpoint({ method: 'POST', path: '/sku-pinned', componentId: c.id, popResult: 'ok', guard: { type: 'component', componentId: v.body.id, componentDigest: v.body.activeRevision.digest } });
    await s.api('PATCH', `/api/v1/components/${v.body.id}`, { schema: { type: 'object', properties: { sku: { type: 'string', maxLength: 20 } }, required: ['sku'] } });
    expect((await s.invoke('POST', '/sku', { key: invoker.key, body: { sku: 'way-too-long' } })).status).toBe(200);
    expect((await s.invoke('POST', '/sku-pinned', { key: invoker.key, body: { sku: 'way-too-long' } })).status).toBe(400);
    expect((await s.invoke('POST', '/sku-pinned', { key: invoker.key, body: { sku: 'A1' } })).status).toBe(200);
  });

  test('a GET guard validates the query, with numbers coerced', async () => {
    const c = await lowcode([{ name: 'q', code: 'return api.input().query;' }]);
    await s.endpoint({ method: 'GET', path: '/search', componentId: c.id, popResult: 'q', guard: { type: 'inline', schema: { type: 'object', properties: { page: { type: 'integer', minimum: 1 } }, required: ['page'] } } });
    expect((await s.invoke('GET', '/search?page=2', { key: invoker.key })).status).toBe(200);
    const zero = await s.invoke('GET', '/search?page=0', { key: invoker.key });
    expect(zero.status).toBe(400);
    // A query parameter's violation points into /query (DESIGN §3).
    expect((await body(zero)).errors).toEqual([expect.objectContaining({ pointer: '/query/page' })]);
    expect((await s.invoke('GET', '/search?page=x', { key: invoker.key })).status).toBe(400);
  });

  test('not JSON → 415; malformed JSON without a guard → 400; over 1 MiB → 413', async () => {
    const c = await lowcode([{ name: 'ok', code: 'return 1;' }]);
    await s.endpoint({ method: 'POST', path: '/plain', componentId: c.id, popResult: 'ok' });
    expect((await s.invoke('POST', '/plain', { key: invoker.key, raw: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(415);
    const m = await s.invoke('POST', '/plain', { key: invoker.key, raw: '{', headers: { 'content-type': 'application/json' } });
    expect(m.status).toBe(400);
    expect((await body(m)).code).toBe('MALFORMED_JSON');
    const big = await s.invoke('POST', '/plain', { key: invoker.key, body: { x: 'y'.repeat(1024 * 1024) } });
    expect(big.status).toBe(413);
    expect((await s.invoke('POST', '/plain', { key: invoker.key })).status).toBe(200);
  });

  test('any body over 1 MiB gets the 413 problem with x-svc-oid, declared or chunked, however large', async () => {
    const c = await lowcode([{ name: 'ok', code: 'return 1;' }]);
    await s.endpoint({ method: 'POST', path: '/huge', componentId: c.id, popResult: 'ok' });
    const headers = { authorization: `Bearer ${invoker.key}`, 'content-type': 'application/json', 'x-svc-oid': 'huge-1' };
    const declared = await fetch(`${s.runtimeUrl}/huge`, { method: 'POST', headers, body: JSON.stringify('z'.repeat(5 * 1024 * 1024)) });
    const chunk = new TextEncoder().encode('z'.repeat(256 * 1024));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('"'));
        for (let i = 0; i < 12; i++) controller.enqueue(chunk); // 3 MiB, no Content-Length
        controller.enqueue(new TextEncoder().encode('"'));
        controller.close();
      },
    });
    const chunked = await fetch(`${s.runtimeUrl}/huge`, { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit);
    for (const r of [declared, chunked]) {
      expect(r.status).toBe(413);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      expect(r.headers.get('x-svc-oid')).toBe('huge-1');
      expect(await body(r)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', oid: 'huge-1' });
    }
    expect((await s.invoke('POST', '/huge', { key: invoker.key, body: { small: true } })).status).toBe(200);
  });

  test('the body reaches the component exactly as sent: pretty-printed, multi-byte, odd keys', async () => {
    const c = await lowcode([{ name: 'in', code: 'const b = api.input().body; return { b, own: Object.keys(b), proto: Object.getPrototypeOf(b) === Object.prototype };' }]);
    await s.endpoint({ method: 'POST', path: '/echo-body', componentId: c.id, popResult: 'in' });
    const sent = { name: 'Grüße \u2028 😀', nested: { list: [1, 2.5, -1, 1e21, null, true], tab: 'a\tb' }, __proto__x: 1 };
    const raw = `{\r\n  "name": ${JSON.stringify(sent.name)},\n  "nested": ${JSON.stringify(sent.nested, null, 2)},\n  "__proto__": { "polluted": true },\n  "__proto__x": 1\n}\n`;
    const r = await s.invoke('POST', '/echo-body', { key: invoker.key, raw, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(200);
    const out = (await body(r)) as { b: Record<string, unknown>; own: string[]; proto: boolean };
    expect(out.own).toEqual(['name', 'nested', '__proto__', '__proto__x']);
    expect(out.proto).toBe(true);
    expect(out.b).toMatchObject({ name: sent.name, nested: sent.nested, __proto__x: 1 });
    expect(out.b.__proto__).toEqual({ polluted: true });
  });

  test('a DELETE passes its JSON body to the component; a guard on DELETE checks the body when one is sent, else the query', async () => {
    const c = await lowcode([{ name: 'in', code: 'const i = api.input(); return { body: i.body ?? null, query: i.query };' }]);
    await s.endpoint({ method: 'DELETE', path: '/items/:id', componentId: c.id, popResult: 'in' });
    const r = await s.invoke('DELETE', '/items/7', { key: invoker.key, body: { reason: 'gone' } });
    expect(r.status).toBe(200);
    expect(await body(r)).toEqual({ body: { reason: 'gone' }, query: {} });
    expect((await s.invoke('DELETE', '/items/7', { key: invoker.key, raw: 'reason=gone', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect(await body(await s.invoke('DELETE', '/items/8', { key: invoker.key }))).toEqual({ body: null, query: {} });
    // Without a body, the key is there all the same (DESIGN §7 lists it), its value undefined.
    const shape = await lowcode([{ name: 'in', code: 'const i = api.input(); return { keys: Object.keys(i).sort(), hasBody: "body" in i, type: typeof i.body };' }]);
    await s.endpoint({ method: 'GET', path: '/input-shape', componentId: shape.id, popResult: 'in' });
    expect(await body(await s.invoke('GET', '/input-shape', { key: invoker.key }))).toEqual({
      keys: ['body', 'headers', 'inputs', 'method', 'params', 'path', 'query'],
      hasBody: true,
      type: 'undefined',
    });
    const guarded = { type: 'inline', schema: { type: 'object', properties: { force: { type: 'boolean' } }, required: ['force'] } };
    await s.endpoint({ method: 'DELETE', path: '/guarded-items/:id', componentId: c.id, popResult: 'in', guard: guarded });
    expect((await s.invoke('DELETE', '/guarded-items/1?force=true', { key: invoker.key })).status).toBe(200);
    // A body is what the guard sees then: a body failing it never reaches the component.
    const badBody = await s.invoke('DELETE', '/guarded-items/1?force=true', { key: invoker.key, body: { any: 1 } });
    expect(badBody.status).toBe(400);
    expect((await body(badBody)).errors).toEqual([expect.objectContaining({ pointer: '/force' })]);
    expect(await body(await s.invoke('DELETE', '/guarded-items/2', { key: invoker.key, body: { force: false } }))).toEqual({ body: { force: false }, query: {} });
    const refused = await s.invoke('DELETE', '/guarded-items/1', { key: invoker.key });
    expect(refused.status).toBe(400);
    expect((await body(refused)).errors).toEqual([expect.objectContaining({ pointer: '/query/force' })]);
  });

  test('component code never sees authorization, cookies or platform headers', async () => {
    const c = await lowcode([{ name: 'h', code: 'return api.input().headers;' }]);
    await s.endpoint({ method: 'GET', path: '/headers', componentId: c.id, popResult: 'h' });
    const r = await s.invoke('GET', '/headers', { key: invoker.key, headers: { cookie: 'a=b', 'x-svc-oid': 'o1', 'x-platform-secret': 's', 'proxy-authorization': 'p', 'x-mine': 'kept' } });
    const seen = await body(r);
    expect(seen['x-mine']).toBe('kept');
    for (const hidden of ['authorization', 'cookie', 'x-svc-oid', 'x-platform-secret', 'proxy-authorization']) expect(seen[hidden]).toBeUndefined();
  });
});

describe('matching', () => {
  test('the most specific active definition wins; disabling removes a route at once', async () => {
    const byName = await s.endpoint({ method: 'GET', path: '/users/:id/profile', staticResponse: { status: 200, body: 'param' } });
    await s.endpoint({ method: 'GET', path: '/users/me/profile', staticResponse: { status: 200, body: 'static' } });
    expect(await body(await s.invoke('GET', '/users/me/profile', { key: invoker.key }))).toBe('static');
    expect(await body(await s.invoke('GET', '/users/42/profile', { key: invoker.key }))).toBe('param');
    expect((await s.invoke('POST', '/users/42/profile', { key: invoker.key })).status).toBe(404);
    await s.api('POST', `/api/v1/endpoints/${byName.id}/disable`);
    expect((await s.invoke('GET', '/users/42/profile', { key: invoker.key })).status).toBe(404);
  });
});

describe('execution identity', () => {
  const whoami = [
    { name: 'me', code: 'return (await api.platform("GET", "/api/v1/me")).body.id;' },
    { name: 'current', code: 'return api.currentUser().id;' },
  ];
  test('CALLER (the new-instance default): inner calls and currentUser are the caller', async () => {
    const c = await lowcode(whoami);
    await s.endpoint({ method: 'GET', path: '/who/caller', componentId: c.id });
    const reader = await s.principal(['ENDPOINT_INVOKE']);
    expect(await body(await s.invoke('GET', '/who/caller', { key: reader.key }))).toEqual({ me: reader.id, current: reader.id });
  });

  test('SERVICE_ACCOUNT: inner calls as the account; currentUser the caller unless EXECUTION_ACCOUNT', async () => {
    const sa = await s.principal([], { kind: 'SERVICE_ACCOUNT' });
    const c = await lowcode(whoami);
    await s.endpoint({ method: 'GET', path: '/who/sa', componentId: c.id, executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: sa.id } });
    await s.endpoint({ method: 'GET', path: '/who/sa-exec', componentId: c.id, executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: sa.id, currentUser: 'EXECUTION_ACCOUNT' } });
    expect(await body(await s.invoke('GET', '/who/sa', { key: invoker.key }))).toEqual({ me: sa.id, current: invoker.id });
    expect(await body(await s.invoke('GET', '/who/sa-exec', { key: invoker.key }))).toEqual({ me: sa.id, current: sa.id });
    // An inactive account stops execution before it starts.
    await s.api('PATCH', `/api/v1/service-accounts/${sa.id}`, { active: false });
    s.platform.credentials.invalidate();
    const r = await s.invoke('GET', '/who/sa', { key: invoker.key });
    expect(r.status).toBe(403);
    expect((await body(r)).code).toBe('EXECUTION_ACCOUNT_UNUSABLE');
  });

  test('an instance without saved settings keeps System authority with the invoking user as business identity', async () => {
    const c = await lowcode(whoami);
    await s.endpoint({ method: 'GET', path: '/who/legacy', componentId: c.id });
    expect((await s.api('DELETE', '/api/v1/endpoints/settings')).status).toBe(204);
    expect(await body(await s.invoke('GET', '/who/legacy', { key: invoker.key }))).toEqual({ me: SYSTEM_PRINCIPAL_ID, current: invoker.id });
    await s.api('PUT', '/api/v1/endpoints/settings', { executionPolicy: { mode: 'CALLER' } });
    expect(await body(await s.invoke('GET', '/who/legacy', { key: invoker.key }))).toEqual({ me: invoker.id, current: invoker.id });
  });

  test('a change made inside an execution is audited with the initiator, the execution account, the oid and the execution id', async () => {
    const sa = await s.principal(['COMPONENT_ADMIN'], { kind: 'SERVICE_ACCOUNT' });
    const c = await lowcode([{ name: 'id', code: 'return (await api.platform("POST", "/api/v1/components", { name: "made-" + api.executionId, kind: "lowcode", elements: [{ name: "a", code: "return 1;" }] })).body.id;' }]);
    await s.endpoint({ method: 'POST', path: '/make-component', componentId: c.id, popResult: 'id', executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: sa.id } });
    const r = await s.invoke('POST', '/make-component', { key: invoker.key, headers: { 'x-svc-oid': 'trace-audit-1' } });
    expect(r.status).toBe(200);
    const made = (await body(r)) as string;
    const filter = encodeURIComponent(JSON.stringify({ and: [{ field: 'action', op: 'eq', value: 'component.create' }, { field: 'resourceId', op: 'eq', value: made }] }));
    const rows = (await s.api('GET', `/api/v1/audit?filter=${filter}`)).body.data;
    expect(rows).toEqual([expect.objectContaining({ actorId: invoker.id, executionAccountId: sa.id, oid: 'trace-audit-1', executionId: r.headers.get('x-execution-id') })]);
    // A direct change: the caller is the actor, no execution account, and the request's oid.
    const direct = await s.api('POST', '/api/v1/components', { name: 'direct', kind: 'lowcode', elements: [{ name: 'a', code: 'return 1;' }] });
    const directFilter = encodeURIComponent(JSON.stringify({ and: [{ field: 'action', op: 'eq', value: 'component.create' }, { field: 'resourceId', op: 'eq', value: direct.body.id }] }));
    const directRows = (await s.api('GET', `/api/v1/audit?filter=${directFilter}`)).body.data;
    expect(directRows).toEqual([expect.objectContaining({ actorId: s.platform.boot.adminPrincipalId, executionAccountId: null, oid: direct.headers.get('x-svc-oid'), executionId: null })]);
  });

  test('changing only the execution identity does not change authorization: inner calls obey the executor\'s roles', async () => {
    const c = await lowcode([{ name: 'status', code: 'return (await api.platform("POST", "/api/v1/workspaces", { name: "from-component-" + api.executionId })).status;' }]);
    await s.endpoint({ method: 'POST', path: '/make-workspace', componentId: c.id, popResult: 'status' });
    expect(await body(await s.invoke('POST', '/make-workspace', { key: invoker.key }))).toBe(403);
    expect(await body(await s.invoke('POST', '/make-workspace'))).toBe(201); // INSTANCE_ADMIN caller
  });

  test('component code cannot turn its invoker\'s execution credential into a lasting key or token', async () => {
    const c = await lowcode([{
      name: 'minted',
      code: `const key = await api.platform("POST", "/api/v1/api-keys", { name: "taken-" + api.executionId });
        const token = await api.platform("POST", "/api/v1/auth/token", {});
        const me = await api.platform("GET", "/api/v1/me");
        return { key: [key.status, key.body.code, key.body.key], token: [token.status, token.body.code, token.body.token], me: me.status };`,
    }]);
    await s.endpoint({ method: 'POST', path: '/mint-credentials', componentId: c.id, popResult: 'minted', executionPolicy: { mode: 'CALLER' } });
    const keysBefore = (await s.api('GET', '/api/v1/api-keys')).body.data.length;
    const r = await s.invoke('POST', '/mint-credentials'); // the INSTANCE_ADMIN invokes it
    expect(r.status).toBe(200);
    expect(await body(r)).toEqual({ key: [403, 'CREDENTIAL_FROM_EXECUTION', null], token: [403, 'CREDENTIAL_FROM_EXECUTION', null], me: 200 });
    expect((await s.api('GET', '/api/v1/api-keys')).body.data.length).toBe(keysBefore);
    // Outside an execution the same calls still work.
    expect((await s.api('POST', '/api/v1/auth/token', {})).status).toBe(200);
  });
});

describe('node components and bindings', () => {
  const deployed = (componentId: string, revisionId: string) => deployedVia(s, componentId, revisionId);
  const activate = (componentId: string, deploymentId: string) => activateDeployment(s, componentId, deploymentId);

  test('no selected ready revision → 503 COMPONENT_NOT_READY; after deploy and activate it runs', async () => {
    const created = await s.api('POST', '/api/v1/components', { name: 'node1', kind: 'node', source: 'export default async (api) => ({ v: 1, user: api.currentUser().kind });' });
    expect(created.status).toBe(201);
    await s.endpoint({ method: 'GET', path: '/node', componentId: created.body.id, popResult: 'default' });
    const before = await s.invoke('GET', '/node', { key: invoker.key });
    expect(before.status).toBe(503);
    expect((await body(before)).code).toBe('COMPONENT_NOT_READY');
    await activate(created.body.id, await deployed(created.body.id, created.body.latestRevision.id));
    const after = await s.invoke('GET', '/node', { key: invoker.key });
    expect(after.status).toBe(200);
    expect(await body(after)).toEqual({ v: 1, user: 'USER' });
  });

  test('a result that breaks the schema its node revision declares is a 500, not a success', async () => {
    const source = 'export default async (api) => { api.result("typed", api.input().body.typed); api.result("free", "anything"); };';
    const results = [{ name: 'typed', visible: true, schema: { type: 'integer', minimum: 0 } }, { name: 'free', visible: true }];
    const created = await s.api('POST', '/api/v1/components', { name: 'node-typed', kind: 'node', source, results });
    expect(created.status).toBe(201);
    await activate(created.body.id, await deployed(created.body.id, created.body.latestRevision.id));
    await s.endpoint({ method: 'POST', path: '/typed/pop', componentId: created.body.id, popResult: 'typed' });
    await s.endpoint({ method: 'POST', path: '/typed/map', componentId: created.body.id });
    expect(await body(await s.invoke('POST', '/typed/pop', { key: invoker.key, body: { typed: 7 } }))).toBe(7);
    expect(await body(await s.invoke('POST', '/typed/map', { key: invoker.key, body: { typed: 7 } }))).toEqual({ typed: 7, free: 'anything' });
    for (const path of ['/typed/pop', '/typed/map']) {
      const bad = await s.invoke('POST', path, { key: invoker.key, body: { typed: 'str' } });
      expect(bad.status).toBe(500);
      expect(await body(bad)).toMatchObject({ code: 'COMPONENT_ERROR', errors: [expect.objectContaining({ pointer: '/results/typed' })] });
    }
  });

  test('results a node revision declares hidden stay out of the result map and the legacy envelope', async () => {
    const source = 'export default async (api) => { api.result("shown", 1); api.result("secret", "s3cr3t"); api.result("hid", 2, { visible: false }); api.result("forced", 3, { visible: true }); return 4; };';
    const results = [{ name: 'default', visible: false }, { name: 'secret', visible: false }, { name: 'forced', visible: false }, { name: 'shown', visible: true }];
    const created = await s.api('POST', '/api/v1/components', { name: 'node-hidden', kind: 'node', source, results });
    expect(created.status).toBe(201);
    await activate(created.body.id, await deployed(created.body.id, created.body.latestRevision.id));
    await s.endpoint({ method: 'GET', path: '/node-hidden', componentId: created.body.id });
    await s.endpoint({ method: 'GET', path: '/node-hidden-legacy', componentId: created.body.id, legacyResults: true });
    // Declared hidden unless api.result says otherwise for that call.
    expect(await body(await s.invoke('GET', '/node-hidden', { key: invoker.key }))).toEqual({ shown: 1, forced: 3 });
    const legacy = await body(await s.invoke('GET', '/node-hidden-legacy', { key: invoker.key }));
    expect(legacy.results).toEqual([{ name: 'shown', value: 1 }, { name: 'forced', value: 3 }]);
  });

  test('a pinned node revision runs only once deployed and activated (then also after it is superseded)', async () => {
    const created = await s.api('POST', '/api/v1/components', { name: 'node-pin', kind: 'node', source: 'export default async () => "pinned";' });
    const digest = created.body.latestRevision.digest;
    const definition = await s.api('POST', '/api/v1/endpoints', { name: 'e', method: 'GET', path: '/node-pinned', componentId: created.body.id, componentDigest: digest, popResult: 'default' });
    expect(definition.status).toBe(201);
    const activated = await s.api('POST', `/api/v1/endpoints/${definition.body.id}/activate`);
    expect(activated.status).toBe(200);
    expect(activated.body.contractStatus.warnings).toEqual([expect.objectContaining({ code: 'COMPONENT_NOT_READY', pointer: '/componentDigest' })]);
    const notReady = async () => {
      const r = await s.invoke('GET', '/node-pinned', { key: invoker.key });
      expect(r.status).toBe(503);
      expect((await body(r)).code).toBe('COMPONENT_NOT_READY');
    };
    await notReady();
    const deploy = (revisionId: string) => deployed(created.body.id, revisionId);
    // Ready is not enough: a ready revision is not used until activated (DESIGN §7).
    const first = await deploy(created.body.latestRevision.id);
    await Bun.sleep(100);
    await notReady();
    await activate(created.body.id, first);
    expect(await body(await s.invoke('GET', '/node-pinned', { key: invoker.key }))).toBe('pinned');
    // A newer revision activated: the pin still runs its (once selected, now superseded) revision.
    const updated = await s.api('PATCH', `/api/v1/components/${created.body.id}`, { source: 'export default async () => "newer";' });
    const second = await deploy(updated.body.latestRevision.id);
    await activate(created.body.id, second);
    expect(await body(await s.invoke('GET', '/node-pinned', { key: invoker.key }))).toBe('pinned');
    // The pinned code saved again: a new pending revision with the same digest. It never takes
    // the pin's place, not even once the binding is made again (any change to the Endpoint).
    const again = await s.api('PATCH', `/api/v1/components/${created.body.id}`, { source: 'export default async () => "pinned";' });
    expect(again.body.latestRevision).toMatchObject({ digest, status: 'pending' });
    const touched = await s.api('PATCH', `/api/v1/endpoints/${definition.body.id}`, { description: 'touched', version: activated.body.version });
    expect(touched.status).toBe(200);
    expect(await body(await s.invoke('GET', '/node-pinned', { key: invoker.key }))).toBe('pinned');
  });

  test('an Endpoint bound to latest follows a new revision; a pinned one stays', async () => {
    const c = await lowcode([{ name: 'v', code: 'return 1;' }]);
    await s.endpoint({ method: 'GET', path: '/follow', componentId: c.id, popResult: 'v' });
    await s.endpoint({ method: 'GET', path: '/pinned', componentId: c.id, componentDigest: c.activeRevision.digest, popResult: 'v' });
    const u = await s.api('PATCH', `/api/v1/components/${c.id}`, { elements: [{ name: 'v', code: 'return 2;' }] });
    expect(u.status).toBe(200);
    expect(await body(await s.invoke('GET', '/follow', { key: invoker.key }))).toBe(2);
    expect(await body(await s.invoke('GET', '/pinned', { key: invoker.key }))).toBe(1);
  });
});

describe('statistics and audit', () => {
  test('invocations are counted and audited with initiator and execution account', async () => {
    const sa = await s.principal([], { kind: 'SERVICE_ACCOUNT' });
    const c = await lowcode([{ name: 'a', code: 'return 1;' }]);
    const e = await s.endpoint({ method: 'GET', path: '/counted', componentId: c.id, popResult: 'a', executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: sa.id } });
    for (let i = 0; i < 3; i++) expect((await s.invoke('GET', '/counted', { key: invoker.key })).status).toBe(200);
    await s.runtime.recorder.flush();
    const stats = await s.api('GET', `/api/v1/endpoints/${e.id}/statistics`);
    expect(stats.body).toMatchObject({ endpointId: e.id, invocations: 3, byStatusClass: { '2xx': 3, '3xx': 0, '4xx': 0, '5xx': 0 } });
    expect(stats.body.latencyMs.p50).toBeGreaterThan(0);
    expect(Date.parse(stats.body.lastInvokedAt)).toBeGreaterThan(Date.now() - 60_000);
    const rows = (await s.platform.db.read((q) => q.select().from(s.platform.db.t.audit))).filter((a) => a.kind === 'invocation' && a.resourceId === e.id);
    expect(rows).toHaveLength(3);
    expect(rows.every((a) => a.actorId === invoker.id && a.executionAccountId === sa.id && a.status === 200 && a.oid && a.executionId)).toBe(true);
  });

  test('a client that goes away while sending its body is no server error: 499, counted with the 4xx, nothing run', async () => {
    const c = await lowcode([{ name: 'a', code: 'return 1;' }]);
    const e = await s.endpoint({ method: 'POST', path: '/abandoned', componentId: c.id, popResult: 'a' });
    const { port } = new URL(s.runtimeUrl);
    const socket = await Bun.connect({ hostname: '127.0.0.1', port: Number(port), socket: { data() {} } });
    socket.write(`POST /abandoned HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${invoker.key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":1`);
    await Bun.sleep(100);
    socket.end();
    let rows: { status: number | null }[] = [];
    for (let i = 0; i < 50 && rows.length === 0; i++) {
      await Bun.sleep(50);
      await s.runtime.recorder.flush();
      rows = (await s.platform.db.read((q) => q.select().from(s.platform.db.t.audit))).filter((a) => a.kind === 'invocation' && a.resourceId === e.id);
    }
    expect(rows.map((r) => r.status)).toEqual([499]);
    const stats = await s.api('GET', `/api/v1/endpoints/${e.id}/statistics`);
    expect(stats.body.byStatusClass).toEqual({ '2xx': 0, '3xx': 0, '4xx': 1, '5xx': 0 });
  });
});
