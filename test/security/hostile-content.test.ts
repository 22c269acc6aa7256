// Submitted content other than code (README "Security": static and validation-failure bodies,
// `inputs`, request bodies, response headers, Endpoint paths, list queries) is data: JSON.parse
// and serialized back, a radix tree of plain data, SQL with bound parameters. Each vector below
// carries text that would run, pollute Object.prototype, forge a header or reach SQL if anything
// interpreted it, and asserts what the client sees and that nothing happened in the server (the
// test process): no globalThis flag, no marker file, Object.prototype untouched, tables intact.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_KEY } from '../helpers/platform.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

const FLAG = '__hostileContentPwned';
const MARKER = join(tmpdir(), `hostile-content-marker-${process.pid}`);
const RUN = `globalThis.${FLAG}=1;process.getBuiltinModule('node:fs').writeFileSync(${JSON.stringify(MARKER)},'x')`;
afterAll(() => rmSync(MARKER, { force: true }));

const nothingRan = (): void => {
  expect((globalThis as Record<string, unknown>)[FLAG]).toBeUndefined();
  expect(existsSync(MARKER)).toBe(false);
  for (const probe of [{}, [], Object.create(Object.prototype)]) {
    expect((probe as Record<string, unknown>).polluted).toBeUndefined();
    expect((probe as Record<string, unknown>).isAdmin).toBeUndefined();
  }
};

/** Strings that would do something if evaluated, templated, spliced into HTML, SQL or a header. */
const CODE_LIKE = [
  RUN,
  `\${${RUN}}`,
  `'); ${RUN}; ('`,
  `"); ${RUN}; ("`,
  `*/ ${RUN} /*`,
  `</script><script>${RUN}</script>`,
  `<!-- ${RUN} -->`,
  `\u2028${RUN}\u2029`,
  `\r\nx-injected: 1\r\n\r\n${RUN}`,
  `'; DROP TABLE endpoints; --`,
  `{{constructor.constructor('${RUN}')()}}`,
  `#{${RUN}}`,
];

/** A JSON text with prototype-polluting keys, as a client would send it (JSON.stringify of a literal would drop __proto__). */
const POLLUTING = '{"__proto__":{"polluted":1,"isAdmin":true},"constructor":{"prototype":{"polluted":1}},"toJSON":"not a function","valueOf":1,"a":1}';

let s: Stack;
let endpointAdmin: { id: string; key: string };
let componentAdmin: { id: string; key: string };
let invoker: { id: string; key: string };
let n = 0;
const uniquePath = () => `/hostile-content/${++n}`;

/** POST/PATCH with a raw JSON text (to keep __proto__ keys as sent). */
async function raw(method: string, path: string, text: string, key: string, origin = s.baseUrl): Promise<{ status: number; body: any; text: string; headers: Headers }> {
  const r = await fetch(origin + path, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: text });
  const body = await r.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = null;
  }
  return { status: r.status, body: parsed, text: body, headers: r.headers };
}

beforeAll(async () => {
  s = await startStack();
  endpointAdmin = await s.principal(['ENDPOINT_ADMIN']);
  componentAdmin = await s.principal(['COMPONENT_ADMIN']);
  invoker = await s.principal(['ENDPOINT_INVOKE']);
});
afterAll(() => s.close());

describe('static and validation-failure bodies are JSON, stored and served back as sent', () => {
  test('code-like strings in a static body come back byte for byte as JSON', async () => {
    const body = { strings: CODE_LIKE, [CODE_LIKE[1]!]: CODE_LIKE[2], nested: { deep: [[[CODE_LIKE[5]]]] }, n: 1e308, neg: -0, tiny: 5e-324 };
    const e = await s.endpoint({ method: 'GET', path: uniquePath(), staticResponse: { status: 200, body } });
    const r = await s.invoke('GET', e.path, { key: invoker.key });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(await r.text()).toBe(JSON.stringify(body));
    nothingRan();
  });

  test('__proto__, constructor.prototype and toJSON keys in a static body: own keys, served as sent, nothing polluted', async () => {
    const created = await raw('POST', '/api/v1/endpoints', `{"name":"p","method":"GET","path":"${uniquePath()}","staticResponse":{"status":200,"body":${POLLUTING}}}`, endpointAdmin.key);
    expect(created.status).toBe(201);
    expect(Object.hasOwn(created.body.staticResponse.body, '__proto__')).toBe(true);
    expect((await s.api('POST', `/api/v1/endpoints/${created.body.id}/activate`, undefined, endpointAdmin.key)).status).toBe(200);
    const r = await s.invoke('GET', created.body.path, { key: invoker.key });
    expect(r.status).toBe(200);
    expect(JSON.parse(await r.text())).toEqual(JSON.parse(POLLUTING));
    // The record read back through the list engine (a JSON path into the document) sees the same.
    const listed = await s.api('GET', `/api/v1/endpoints?filter=${encodeURIComponent(JSON.stringify({ field: 'staticResponse.body.a', op: 'eq', value: 1 }))}`, undefined, endpointAdmin.key);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((d: { id: string }) => d.id)).toContain(created.body.id);
    nothingRan();
  });

  test('a validation-failure body with code-like strings and polluting keys is sent as configured', async () => {
    const created = await raw(
      'POST',
      '/api/v1/endpoints',
      `{"name":"v","method":"POST","path":"${uniquePath()}","guard":{"type":"inline","schema":{"type":"object","required":["q"]}},"validationFailure":{"status":422,"body":{"list":${JSON.stringify(CODE_LIKE)},"p":${POLLUTING}}},"staticResponse":{"status":200,"body":{}}}`,
      endpointAdmin.key,
    );
    expect(created.status).toBe(201);
    expect((await s.api('POST', `/api/v1/endpoints/${created.body.id}/activate`, undefined, endpointAdmin.key)).status).toBe(200);
    const r = await s.invoke('POST', created.body.path, { key: invoker.key, raw: POLLUTING, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(422);
    expect(JSON.parse(await r.text())).toEqual({ list: CODE_LIKE, p: JSON.parse(POLLUTING) });
    nothingRan();
  });

  test('the generated OpenAPI documents carry the bodies as JSON examples, and the docs page does not embed them', async () => {
    const name = `</script><script>${RUN}</script>`;
    const e = await s.endpoint({ method: 'GET', path: uniquePath(), name, description: CODE_LIKE.join('\n'), staticResponse: { status: 200, headers: { 'content-type': '__proto__' }, body: { x: RUN } } });
    const one = await s.api('GET', `/api/v1/endpoints/${e.id}/openapi`, undefined, endpointAdmin.key);
    expect(one.status).toBe(200);
    expect(JSON.stringify(one.body)).toContain(JSON.stringify(RUN).slice(1, -1));
    const all = await s.api('GET', '/api/v1/endpoints/openapi', undefined, endpointAdmin.key);
    expect(all.status).toBe(200);
    const docs = await fetch(`${s.baseUrl}/api/v1/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).not.toContain(FLAG);
    nothingRan();
  });
});

describe('response headers of a static response', () => {
  test('a value or name that would split the response or forge a header is refused at its pointer', async () => {
    for (const headers of [
      { 'x-a': 'v\r\nx-injected: 1' },
      { 'x-a': 'v\nx-injected: 1' },
      { 'x-a': 'v\rx' },
      { 'x-a': 'v\u0000' },
      { 'x-a\r\nx-injected': 'v' },
      { 'x a': 'v' },
      { 'x:a': 'v' },
      { '': 'v' },
      { 'x-\u2028': 'v' },
      { 'x-é': 'v' },
    ]) {
      const r = await s.api('POST', '/api/v1/endpoints', { name: 'h', method: 'GET', path: uniquePath(), staticResponse: { status: 200, headers, body: {} } }, endpointAdmin.key);
      expect({ headers, status: r.status }).toEqual({ headers, status: 422 });
      expect(r.body.errors[0].pointer).toStartWith('/staticResponse/headers');
    }
    nothingRan();
  });

  test('code-like header values that are valid header text are sent as text', async () => {
    const value = `\${${RUN}} </script> '"; --`;
    const e = await s.endpoint({ method: 'GET', path: uniquePath(), staticResponse: { status: 200, headers: { 'x-hostile': value, 'content-type': 'text/plain; charset=utf-8' }, body: 'plain' } });
    const r = await s.invoke('GET', e.path, { key: invoker.key });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-hostile')).toBe(value);
    expect(r.headers.get('x-injected')).toBeNull();
    // A string body with a content type of its own is sent as that text (an ENDPOINT_ADMIN decides
    // what the runtime origin answers, text/html included: data, never run by the server).
    expect(await r.text()).toBe('plain');
    nothingRan();
  });
});

describe('Endpoint paths: a radix tree of plain data', () => {
  let component: string;
  beforeAll(async () => {
    const made = await s.api('POST', '/api/v1/components', { name: 'echo', kind: 'lowcode', elements: [{ name: 'v', code: 'return { params: input.params, query: input.query, body: input.body, inputs: input.inputs, own: Object.keys(input.params) }' }] }, componentAdmin.key);
    expect(made.status).toBe(201);
    component = made.body.id;
  });

  test('prototype-named parameters are own keys of the params the component sees', async () => {
    const base = uniquePath();
    await s.endpoint({ method: 'GET', path: `${base}/:__proto__/:constructor/:toString`, componentId: component, popResult: 'v' });
    const r = await s.invoke('GET', `${base}/p1/p2/p3`, { key: invoker.key });
    expect(r.status).toBe(200);
    const out = (await r.json()) as { params: Record<string, string>; own: string[] };
    expect(out.own).toEqual(['__proto__', 'constructor', 'toString']);
    expect(JSON.parse(JSON.stringify(out.params))).toEqual(JSON.parse('{"__proto__":"p1","constructor":"p2","toString":"p3"}'));
    nothingRan();
  });

  test('paths with template, quote, script and traversal text: refused, or matched literally', async () => {
    for (const path of [`/\${x}`, "/a'b", '/a"b', '/</script>', '/a/../b', '/a/./b', '/%2e%2e/x', '/a%00b', '/a\nb', '/*', '/a?b', '/a#b', '/:a-b', '/:1a', '/:a/:a']) {
      const r = await s.api('POST', '/api/v1/endpoints', { name: 'p', method: 'GET', path, staticResponse: { status: 200, body: { path } } }, endpointAdmin.key);
      if (r.status === 422) continue;
      expect({ path, status: r.status }).toEqual({ path, status: 201 });
      const activated = await s.api('POST', `/api/v1/endpoints/${r.body.id}/activate`, undefined, endpointAdmin.key);
      if (activated.status !== 200) continue; // an equal route from an earlier case
      const hit = await fetch(s.runtimeUrl + new URL(r.body.path, 'http://x').pathname, { headers: { authorization: `Bearer ${invoker.key}` } });
      expect([200, 404]).toContain(hit.status);
    }
    nothingRan();
  });
});

describe('request bodies, queries and inputs reach the component as data', () => {
  let component: string;
  beforeAll(async () => {
    const made = await s.api('POST', '/api/v1/components', { name: 'echo2', kind: 'lowcode', elements: [{ name: 'v', code: 'return { query: input.query, body: input.body, inputs: input.inputs }' }] }, componentAdmin.key);
    component = made.body.id;
  });

  test('a body with __proto__/constructor keys and code-like strings comes back as sent; the server is not polluted', async () => {
    const e = await s.endpoint({ method: 'POST', path: uniquePath(), componentId: component, popResult: 'v' });
    const text = POLLUTING.slice(0, -1) + `,"code":${JSON.stringify(CODE_LIKE)}}`;
    const r = await s.invoke('POST', e.path, { key: invoker.key, raw: text, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(200);
    expect(JSON.parse(await r.text()).body).toEqual(JSON.parse(text));
    nothingRan();
  });

  test('a GET query with prototype keys and bracket syntax, through a guard that coerces it', async () => {
    const e = await s.endpoint({ method: 'GET', path: uniquePath(), componentId: component, popResult: 'v', guard: { type: 'inline', schema: { type: 'object', properties: JSON.parse('{"n": {"type": "integer"}, "__proto__": {"type": "string", "maxLength": 1}}') } } });
    const r = await s.invoke('GET', `${e.path}?__proto__=x&constructor[prototype][polluted]=1&__proto__[polluted]=1&n=1&code=${encodeURIComponent(RUN)}`, { key: invoker.key });
    expect(r.status).toBe(200);
    // The component sees the query as sent: flat keys (no bracket parsing), strings, __proto__ an own key.
    const text = await r.text();
    expect(JSON.parse(text).query).toEqual(JSON.parse(`{"__proto__":"x","constructor[prototype][polluted]":"1","__proto__[polluted]":"1","n":"1","code":${JSON.stringify(RUN)}}`));
    // The guard reads `__proto__` as an own property of the query: a value too long for it is refused.
    const refused = await s.invoke('GET', `${e.path}?__proto__=toolong&n=1`, { key: invoker.key });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { errors: { pointer: string }[] }).errors[0]!.pointer).toBe('/query/__proto__');
    nothingRan();
  });

  test('inputs with polluting keys and code-like strings are handed over as data', async () => {
    const created = await raw('POST', '/api/v1/endpoints', `{"name":"i","method":"GET","path":"${uniquePath()}","componentId":"${component}","popResult":"v","inputs":{"p":${POLLUTING},"code":${JSON.stringify(CODE_LIKE)}}}`, endpointAdmin.key);
    expect(created.status).toBe(201);
    expect((await s.api('POST', `/api/v1/endpoints/${created.body.id}/activate`, undefined, endpointAdmin.key)).status).toBe(200);
    const r = await s.invoke('GET', created.body.path, { key: invoker.key });
    expect(r.status).toBe(200);
    expect(JSON.parse(await r.text()).inputs).toEqual({ p: JSON.parse(POLLUTING), code: CODE_LIKE });
    nothingRan();
  });

  test('an unauthenticated client: 401 before its body is read, whatever it holds', async () => {
    const e = await s.endpoint({ method: 'POST', path: uniquePath(), componentId: component, popResult: 'v' });
    for (const body of [POLLUTING, '['.repeat(500_000), `{"a":"${'\\u0000'.repeat(1000)}"}`]) {
      const runtime = await fetch(s.runtimeUrl + e.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(runtime.status).toBe(401);
      const control = await fetch(`${s.baseUrl}/api/v1/components`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(control.status).toBe(401);
    }
    nothingRan();
  });
});

describe('list queries: parsed into a tree, compiled to SQL with bound parameters', () => {
  const SLOTS = [
    'filter[__proto__][polluted]=1',
    'filter[constructor][prototype][polluted]=1',
    'filter[and][0][__proto__][polluted]=1',
    'sort[__proto__]=asc',
    'fields[__proto__]=x',
    'cast[__proto__]=TEXT',
    `filter=${encodeURIComponent('{"__proto__":{"polluted":1},"field":"name","op":"eq","value":"x"}')}`,
    `filter=${encodeURIComponent(JSON.stringify({ field: 'name', op: 'eq', value: RUN }))}`,
    `filter=${encodeURIComponent(JSON.stringify({ field: `name'); ${RUN}; --`, op: 'eq', value: 'x' }))}`,
    `filter=${encodeURIComponent(JSON.stringify({ field: 'staticResponse.body.__proto__', op: 'eq', value: 1 }))}`,
    `filter=${encodeURIComponent(JSON.stringify({ field: "staticResponse.body.a'); DROP TABLE endpoints; --", op: 'eq', value: 1 }))}`,
    `filter=${encodeURIComponent(JSON.stringify({ field: 'name', op: `eq'; ${RUN}; --`, value: 'x' }))}`,
    `sort=${encodeURIComponent(`name; DROP TABLE endpoints; --`)}`,
    `fields=${encodeURIComponent(JSON.stringify([{ raw: RUN, as: 'x' }]))}`,
    `fields=${encodeURIComponent(JSON.stringify([{ fn: 'lower', args: ['name'], as: `x"; DROP TABLE endpoints; --` }]))}`,
    `cte=${encodeURIComponent(JSON.stringify({ '__proto__': { from: 'endpoints' } }))}`,
    `cte=${encodeURIComponent(JSON.stringify({ 'a"; DROP TABLE endpoints; --': { from: 'endpoints' } }))}`,
    `cast=${encodeURIComponent(JSON.stringify({ timeoutMs: `TEXT); DROP TABLE endpoints; --` }))}`,
    `groupBy=${encodeURIComponent(`name, (SELECT 1); --`)}`,
    `distinct=${encodeURIComponent(`name"); ${RUN}; --`)}`,
    `debug=true&filter=${encodeURIComponent(JSON.stringify({ field: 'name', op: 'like', value: `%'; ${RUN}; --` }))}`,
    `limit=${encodeURIComponent('1; DROP TABLE endpoints')}`,
  ];

  test('every hostile parameter is a result or a 400, Object.prototype stays clean, the tables stay intact', async () => {
    const before = await s.api('GET', '/api/v1/endpoints?count=true&limit=0', undefined, endpointAdmin.key);
    expect(before.status).toBe(200);
    for (const slot of SLOTS) {
      for (const key of [endpointAdmin.key, ADMIN_KEY]) {
        const r = await fetch(`${s.baseUrl}/api/v1/endpoints?${slot}`, { headers: { authorization: `Bearer ${key}` } });
        expect({ slot, status: [200, 400, 403].includes(r.status) }).toEqual({ slot, status: true });
        await r.arrayBuffer();
      }
    }
    const after = await s.api('GET', '/api/v1/endpoints?count=true&limit=0', undefined, endpointAdmin.key);
    expect(after.body.meta.count).toBe(before.body.meta.count);
    const audit = await s.api('GET', '/api/v1/audit?limit=1');
    expect(audit.status).toBe(200);
    nothingRan();
  });

  test('an x-svc-oid header carrying code is not continued', async () => {
    const r = await fetch(`${s.baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${ADMIN_KEY}`, 'x-svc-oid': `</script>${RUN}` } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-svc-oid')).not.toContain('script');
    nothingRan();
  });
});
