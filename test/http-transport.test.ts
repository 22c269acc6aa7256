// The control plane over real sockets: who is asked first (the credential, before the body),
// the bearer scheme's spelling, and limits enforced by us at any size (problem+json, never Bun's
// bare 413 or 431).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_KEY } from './helpers/platform.ts';
import { startStack, type Stack } from './helpers/stack.ts';

let s: Stack;
beforeAll(async () => {
  s = await startStack();
});
afterAll(() => s.close());

const expectProblem = async (r: Response, status: number, code: string) => {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toBe('application/problem+json');
  const oid = r.headers.get('x-svc-oid');
  expect(oid).toBeTruthy();
  expect(await r.json()).toMatchObject({ status, code, oid });
};

describe('the credential is checked before the body', () => {
  test('no or a wrong credential with a malformed, non-JSON or oversized body → 401', async () => {
    const url = `${s.baseUrl}/api/v1/users`;
    await expectProblem(await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{bad' }), 401, 'UNAUTHORIZED');
    const wrong = { authorization: 'Bearer sk-wrong-key-000000000000000000000000000' };
    await expectProblem(await fetch(url, { method: 'POST', headers: { ...wrong, 'content-type': 'application/json' }, body: '{bad' }), 401, 'UNAUTHORIZED');
    await expectProblem(await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }), 401, 'UNAUTHORIZED');
    const big = JSON.stringify({ pad: 'x'.repeat(5 * 1024 * 1024) });
    await expectProblem(await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big }), 401, 'UNAUTHORIZED');
  });

  test('with a valid credential the same bodies are judged as bodies', async () => {
    const auth = { authorization: `Bearer ${ADMIN_KEY}` };
    const url = `${s.baseUrl}/api/v1/users`;
    await expectProblem(await fetch(url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{bad' }), 400, 'MALFORMED_JSON');
    await expectProblem(await fetch(url, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: 'x' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('a content coding we do not decode → 415, and nothing is created; a BOM is dropped; invalid UTF-8 is malformed JSON', async () => {
    const auth = { authorization: `Bearer ${ADMIN_KEY}` };
    const url = `${s.baseUrl}/api/v1/workspaces`;
    const count = async () => ((await (await fetch(`${url}?limit=10000`, { headers: auth })).json()) as { data: unknown[] }).data.length;
    const before = await count();
    const gzipped = Bun.gzipSync(Buffer.from(JSON.stringify({ name: 'coded' })));
    await expectProblem(await fetch(url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipped }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await count()).toBe(before);
    const bom = Buffer.from('\uFEFF' + JSON.stringify({ name: 'after a byte order mark' }));
    expect((await fetch(url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: bom })).status).toBe(201);
    // Under the 4 MiB limit as bytes, over it once each invalid byte became U+FFFD: still judged as JSON (malformed here).
    const invalid = Buffer.concat([Buffer.from('{"name":'), Buffer.alloc(1_500_000, 0xff), Buffer.from('}')]);
    await expectProblem(await fetch(url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: invalid }), 400, 'MALFORMED_JSON');
    // Inside a string, where a lenient decoder would store U+FFFD instead of what was sent.
    const inString = Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b"}')]);
    await expectProblem(await fetch(url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: inString }), 400, 'MALFORMED_JSON');
    await expectProblem(await fetch(url, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: inString }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect(await count()).toBe(before + 1);
  });

  test('a number beyond the range of a double → 422 with its pointer (JSON.parse makes it Infinity, stored as null)', async () => {
    const auth = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    const agent = (await (await fetch(`${s.baseUrl}/api/v1/agents`, { method: 'POST', headers: auth, body: '{"name":"numbers"}' })).json()) as { id: string };
    const runs = `${s.baseUrl}/api/v1/agents/${agent.id}/runs`;
    const cases: [string, string][] = [['{"input":1e400}', '/input'], ['{"input":{"a":[1,-2E+999]}}', '/input/a/1'], [`{"input":${'9'.repeat(400)}}`, '/input']];
    for (const [body, pointer] of cases) {
      const r = await fetch(runs, { method: 'POST', headers: auth, body });
      expect(r.status).toBe(422);
      expect(((await r.json()) as { errors: { pointer: string }[] }).errors[0]!.pointer).toBe(pointer);
    }
    const fine = await fetch(runs, { method: 'POST', headers: auth, body: '{"input":{"big":1.5e308,"tiny":1e-400,"s":"1e400"}}' });
    expect(fine.status).toBe(201);
    expect(((await fine.json()) as { input: unknown }).input).toEqual({ big: 1.5e308, tiny: 0, s: '1e400' });
  });
});

describe('bearer scheme', () => {
  test('the scheme name is case-insensitive', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const r = await fetch(`${s.baseUrl}/api/v1/me`, { headers: { authorization: `${scheme} ${ADMIN_KEY}` } });
      expect(r.status).toBe(200);
    }
    await expectProblem(await fetch(`${s.baseUrl}/api/v1/me`, { headers: { authorization: `Basic ${ADMIN_KEY}` } }), 401, 'UNAUTHORIZED');
  });
});

describe('limits at any size', () => {
  test('a body far over 4 MiB (declared or chunked) → 413 problem+json with x-svc-oid', async () => {
    const auth = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    const huge = JSON.stringify({ name: 'w', pad: 'x'.repeat(9 * 1024 * 1024) });
    await expectProblem(await fetch(`${s.baseUrl}/api/v1/workspaces`, { method: 'POST', headers: auth, body: huge }), 413, 'PAYLOAD_TOO_LARGE');
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 6) controller.enqueue(chunk);
        else controller.close();
      },
    });
    await expectProblem(await fetch(`${s.baseUrl}/api/v1/workspaces`, { method: 'POST', headers: auth, body: stream }), 413, 'PAYLOAD_TOO_LARGE');
    // Nothing was created by either.
    const list = await s.api('GET', '/api/v1/workspaces');
    expect(list.body.data.map((w: { name: string }) => w.name)).not.toContain('w');
  });

  test('a 1000-value bracket-style `in` list fits in the request line (npm test runs Bun with --max-http-header-size)', async () => {
    const created = await s.api('POST', '/api/v1/agents', { name: 'needle' });
    expect(created.status).toBe(201);
    const values = Array.from({ length: 1000 }, (_, i) => `filter%5Bvalue%5D%5B${i}%5D=name-${String(i).padStart(4, '0')}`);
    values[500] = 'filter%5Bvalue%5D%5B500%5D=needle';
    const query = `filter%5Bfield%5D=name&filter%5Bop%5D=in&${values.join('&')}`;
    expect(query.length).toBeGreaterThan(30_000);
    const r = await fetch(`${s.baseUrl}/api/v1/agents?${query}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { data: { id: string }[] };
    expect(body.data.map((a) => a.id)).toEqual([created.body.id]);
  });
});

describe('the workspace of a new resource', () => {
  test('an instance admin naming a workspace that does not exist → 404, nothing created', async () => {
    const ghost = '00000000-0000-4000-8000-00000000dead';
    const component = { name: 'c', kind: 'lowcode', elements: [{ name: 'out', code: 'return 1;' }] };
    const bodies: [string, Record<string, unknown>][] = [
      ['/api/v1/agents', { name: 'ghost-agent' }],
      ['/api/v1/components', component],
      ['/api/v1/endpoints', { name: 'ghost-endpoint', method: 'GET', path: '/ghost', staticResponse: { status: 200 } }],
    ];
    for (const [path, body] of bodies) {
      const r = await s.api('POST', path, { ...body, workspaceId: ghost });
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ code: 'NOT_FOUND', detail: 'Workspace not found' });
      const list = await s.api('GET', `${path}?filter=${encodeURIComponent(JSON.stringify({ field: 'workspaceId', op: 'eq', value: ghost }))}`);
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([]);
    }
  });
});

describe('ids', () => {
  test('an upper-case spelling of an id in a path names the same resource (on SQLite as on Postgres)', async () => {
    const auth = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
    const created = (await (await fetch(`${s.baseUrl}/api/v1/agents`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'cased' }) })).json()) as { id: string };
    const upper = created.id.toUpperCase();
    const got = await fetch(`${s.baseUrl}/api/v1/agents/${upper}`, { headers: auth });
    expect(got.status).toBe(200);
    expect(((await got.json()) as { id: string }).id).toBe(created.id);
    const patched = await fetch(`${s.baseUrl}/api/v1/agents/${upper}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ desc: 'via upper case' }) });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ id: created.id, desc: 'via upper case', version: 1 });
  });
});

