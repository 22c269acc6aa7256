// Components over HTTP on every database: create, read, PATCH with revisions and locking, roles,
// source checks with pointers, delete with dependents, audit, index publication, resolveRevision.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { databaseCases, dropPostgresSchema } from '../helpers/databases.ts';
import { startComponentHarness, type ComponentHarness } from './harness.ts';
import { resolveRevision } from '../../src/components/index.ts';
import { currentIndexVersion } from '../../src/core/definitions/index-version.ts';

type Revision = { id: string; number: number; digest: string; status: string; createdBy: string; createdAt: string; elements?: { name: string; code: string; visible: boolean }[]; source?: string; results?: unknown[]; schema?: unknown };
type Component = { id: string; name: string; kind: string; description: string | null; workspaceId: string; latestRevision: Revision | null; activeRevision: Revision | null; version: number; createdAt: string; updatedAt: string };
type Problem = { code: string; detail: string; errors?: { pointer: string; message: string }[]; currentVersion?: number; dependents?: { type: string; id: string; name: string; pointer: string }[] };

const lowcode = (extra: Record<string, unknown> = {}) => ({ name: 'Greeter', kind: 'lowcode', elements: [{ name: 'greeting', code: 'return "hi " + input.body.name' }], ...extra });

for (const database of databaseCases()) describe(`on ${database.name}`, () => {

let h: ComponentHarness;
type User = { id: string; key: string; workspaceIds: string[] };
let compAdmin: User;
let endpointAdmin: User;
let agentAdmin: User;
let outsider: User;
let defaultWorkspace: string;
let otherWorkspace: string;

beforeAll(async () => {
  h = await startComponentHarness(database);
  otherWorkspace = await h.workspace('other');
  compAdmin = await h.principal('comp', ['COMPONENT_ADMIN']);
  endpointAdmin = await h.principal('endp', ['ENDPOINT_ADMIN']);
  agentAdmin = await h.principal('agent', ['AGENT_ADMIN']);
  outsider = await h.principal('outsider', ['COMPONENT_ADMIN'], { workspaceIds: [otherWorkspace] });
  defaultWorkspace = compAdmin.workspaceIds[0]!;
});
afterAll(async () => {
  await h.close();
  await dropPostgresSchema(database.postgresSchema);
});

async function create(body: Record<string, unknown>, key = compAdmin.key) {
  const r = await h.json<Component>('POST', '/api/v1/components', { key, body });
  expect(r.status).toBe(201);
  return r.body;
}
const patch = (id: string, body: unknown, key = compAdmin.key, headers?: Record<string, string>) =>
  h.json<Component & Problem>('PATCH', `/api/v1/components/${id}`, { key, body, headers });
const revisionsOf = async (id: string) => (await h.json<{ data: Revision[] }>('GET', `/api/v1/components/${id}/revisions`, { key: compAdmin.key })).body.data;
const auditOf = (resourceId: string) => h.db.read((q) => q.select().from(h.db.t.audit).where(eq(h.db.t.audit.resourceId, resourceId)));

describe('create and the record shape', () => {
  test('lowcode: 201, ETag, the record with revision 1 active, visible defaulted, in the caller\'s first workspace', async () => {
    const r = await h.json<Component>('POST', '/api/v1/components', { key: compAdmin.key, body: lowcode() });
    expect(r.status).toBe(201);
    expect(r.headers.get('etag')).toBe('"0"');
    expect(Object.keys(r.body).sort()).toEqual(['activeRevision', 'createdAt', 'description', 'id', 'kind', 'latestRevision', 'name', 'updatedAt', 'version', 'workspaceId']);
    expect(r.body).toMatchObject({ name: 'Greeter', kind: 'lowcode', description: null, workspaceId: defaultWorkspace, version: 0 });
    const revision = r.body.latestRevision!;
    expect(Object.keys(revision).sort()).toEqual(['createdAt', 'createdBy', 'digest', 'elements', 'id', 'number', 'status']);
    expect(revision).toMatchObject({ number: 1, status: 'active', createdBy: compAdmin.id, elements: [{ name: 'greeting', code: 'return "hi " + input.body.name', visible: true }] });
    expect(revision.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(r.body.activeRevision).toEqual(revision);
    const got = await h.json<Component>('GET', `/api/v1/components/${r.body.id}`, { key: compAdmin.key });
    expect(got.body).toEqual(r.body);
  });

  test('node: revision 1 is pending and nothing is active; results appear only when declared', async () => {
    const plain = await create({ name: 'N', kind: 'node', source: 'export default async (api: unknown) => 1;', description: 'd' });
    expect(plain).toMatchObject({ kind: 'node', description: 'd', activeRevision: null, latestRevision: { number: 1, status: 'pending', source: 'export default async (api: unknown) => 1;' } });
    expect('results' in plain.latestRevision!).toBe(false);
    const declared = await create({ name: 'N2', kind: 'node', source: 'export default async () => 1;', results: [{ name: 'default', schema: { type: 'integer' } }] });
    expect(declared.latestRevision!.results).toEqual([{ name: 'default', visible: true, schema: { type: 'integer' } }]);
  });

  test('json-validator: revision 1 active with its schema', async () => {
    const c = await create({ name: 'V', kind: 'json-validator', schema: { type: 'object', properties: { a: { type: 'string', maxLength: 3 } } } });
    expect(c.activeRevision).toMatchObject({ number: 1, status: 'active', schema: { type: 'object', properties: { a: { type: 'string', maxLength: 3 } } } });
  });

  test('body violations are 422 with pointers: missing or foreign content fields, names, duplicates, unknown properties', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ name: 'x', kind: 'lowcode' }, ['/elements']],
      [{ name: 'x', kind: 'node' }, ['/source']],
      [{ name: 'x', kind: 'json-validator' }, ['/schema']],
      [{ name: 'x', kind: 'lowcode', elements: [{ name: 'a', code: '' }], source: 'x' }, ['/source']],
      [{ name: 'x', kind: 'json-validator', schema: {}, results: [] }, ['/results']],
      [{ name: 'x', kind: 'lowcode', elements: [{ name: 'a', code: '' }, { name: 'b', code: '' }, { name: 'a', code: '' }] }, ['/elements/2/name']],
      [{ name: 'x', kind: 'lowcode', elements: [{ name: '1a', code: '' }] }, ['/elements/0/name']],
      [{ name: 'x', kind: 'lowcode', elements: [] }, ['/elements']],
      [{ name: 'x', kind: 'node', source: 's', results: [{ name: 'r' }, { name: 'r' }] }, ['/results/1/name']],
      [{ name: 'x', kind: 'python', elements: [] }, ['/kind']],
      [{ name: 'x', kind: 'lowcode', elements: [{ name: 'a', code: '', extra: 1 }], foo: 1 }, ['/elements/0/extra', '/foo']],
      [{ name: 'x', kind: 'lowcode', elements: [{ name: 'a', code: 'return "\u0000"' }] }, ['/elements/0/code']],
    ];
    for (const [body, pointers] of cases) {
      const r = await h.json<Problem>('POST', '/api/v1/components', { key: compAdmin.key, body });
      expect(r.status).toBe(422);
      for (const pointer of pointers) expect(r.body.errors!.map((e) => e.pointer)).toContain(pointer);
    }
  });
});

describe('source checks on save (422 SOURCE_INVALID)', () => {
  test('lowcode: the failing element\'s code, with line and column', async () => {
    const r = await h.json<Problem>('POST', '/api/v1/components', { key: compAdmin.key, body: { name: 'x', kind: 'lowcode', elements: [
      { name: 'a', code: 'return 1' }, { name: 'b', code: 'return 2' }, { name: 'c', code: 'const y = 1;\nreturn y +;' },
    ] } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('SOURCE_INVALID');
    expect(r.body.errors).toEqual([{ pointer: '/elements/2/code', message: expect.stringMatching(/^line 2, column \d+: /) }]);
  });

  test('source problems are listed together with the body\'s other violations', async () => {
    const r = await h.json<Problem>('POST', '/api/v1/components', { key: compAdmin.key, body: { name: 'x', kind: 'lowcode', elements: [
      { name: 'a', code: 'return (;' }, { name: 'a', code: 'return );' },
    ] } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('VALIDATION_FAILED');
    expect(r.body.errors!.map((e) => e.pointer).sort()).toEqual(['/elements/0/code', '/elements/1/code', '/elements/1/name']);
    const node = await h.json<Problem>('POST', '/api/v1/components', { key: compAdmin.key, body: { name: '', kind: 'node', source: 'export default (' } });
    expect(node.body.errors!.map((e) => e.pointer).sort()).toEqual(['/name', '/source']);
  });

  test('lowcode: code that escapes its function body', async () => {
    const r = await h.json<Problem>('POST', '/api/v1/components', { key: compAdmin.key, body: { name: 'x', kind: 'lowcode', elements: [{ name: 'a', code: '}; globalThis.pwned = 1; {' }] } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('SOURCE_INVALID');
    expect(r.body.errors).toEqual([{ pointer: '/elements/0/code', message: expect.stringMatching(/^line 1, column \d+: /) }]);
  });

  test('node: a syntax error at /source with line and column; nothing is stored', async () => {
    const before = (await h.db.read((q) => q.select().from(h.db.t.components))).length;
    const r = await h.json<Problem>('POST', '/api/v1/components', { key: compAdmin.key, body: { name: 'x', kind: 'node', source: 'export default async (api) => {\n  return api.input(;\n};' } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'SOURCE_INVALID', errors: [{ pointer: '/source', message: expect.stringMatching(/^line 2, column \d+: /) }] });
    expect((await h.db.read((q) => q.select().from(h.db.t.components))).length).toBe(before);
  });

  test('node: imports other than node: builtins are refused, named', async () => {
    const r = await h.json<Problem>('POST', '/api/v1/components', { key: compAdmin.key, body: { name: 'x', kind: 'node', source: "import { createHash } from 'node:crypto';\nimport _ from 'lodash';\nexport default async () => _(createHash);" } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('SOURCE_INVALID');
    expect(r.body.errors).toEqual([{ pointer: '/source', message: expect.stringMatching(/^line 2, column 15: import of "lodash" is not allowed/) }]);
  });

  test('json-validator: a schema that does not compile, pointed into /schema', async () => {
    const r = await h.json<Problem>('POST', '/api/v1/components', { key: compAdmin.key, body: { name: 'x', kind: 'json-validator', schema: { type: 'object', properties: { a: { type: 'string', pattern: '([' } } } } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'SOURCE_INVALID', errors: [{ pointer: '/schema/properties/a/pattern' }] });
  });

  test('node: a declared result schema that does not compile', async () => {
    const r = await h.json<Problem>('POST', '/api/v1/components', { key: compAdmin.key, body: { name: 'x', kind: 'node', source: 'export default async () => 1', results: [{ name: 'default', schema: { type: 'nope' } }] } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'SOURCE_INVALID', errors: [{ pointer: '/results/0/schema/type' }] });
  });
});

describe('PATCH and revisions', () => {
  test('identical content saves no revision and leaves the version (also with visible spelled out)', async () => {
    const c = await create(lowcode());
    const r = await patch(c.id, { elements: [{ code: 'return "hi " + input.body.name', name: 'greeting', visible: true }] });
    expect(r.status).toBe(200);
    expect(r.body.version).toBe(0);
    expect(r.body.latestRevision!.id).toBe(c.latestRevision!.id);
    expect(await revisionsOf(c.id)).toHaveLength(1);
    const empty = await patch(c.id, {});
    expect(empty.status).toBe(200);
    expect(empty.body.version).toBe(0);
  });

  test('the revision list is a list-engine list: filter, fields, count, and 400 for unknown fields', async () => {
    const c = await create(lowcode());
    await patch(c.id, { elements: [{ name: 'greeting', code: 'return "v2"' }] });
    await patch(c.id, { elements: [{ name: 'greeting', code: 'return "v3"' }] });
    const url = (q: string) => `/api/v1/components/${c.id}/revisions?${q}`;
    const one = await h.json<{ data: Revision[]; meta: Record<string, unknown> }>('GET', url(`filter=${encodeURIComponent(JSON.stringify({ field: 'number', op: 'eq', value: 2 }))}`), { key: compAdmin.key });
    expect(one.status).toBe(200);
    expect(one.body.data.map((r) => r.number)).toEqual([2]);
    expect(one.body.data[0]).toMatchObject({ status: 'superseded', elements: [{ name: 'greeting', code: 'return "v2"' }] });
    const slim = await h.json<{ data: Record<string, unknown>[]; meta: Record<string, unknown> }>('GET', url('fields=number,status&count=true'), { key: compAdmin.key });
    expect(slim.body.data).toEqual([{ number: 3, status: 'active' }, { number: 2, status: 'superseded' }, { number: 1, status: 'superseded' }]);
    expect(slim.body.meta).toMatchObject({ count: 3, hasMore: false });
    const bad = await h.json<Problem>('GET', url(`filter=${encodeURIComponent(JSON.stringify({ field: 'nope', op: 'eq', value: 1 }))}`), { key: compAdmin.key });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_QUERY');
  });

  test('schema key order is not a change (canonical digest)', async () => {
    const c = await create({ name: 'V', kind: 'json-validator', schema: { type: 'object', required: ['a'], properties: { a: { type: 'string', maxLength: 2 } } } });
    const r = await patch(c.id, { schema: { properties: { a: { maxLength: 2, type: 'string' } }, required: ['a'], type: 'object' } });
    expect(r.body).toMatchObject({ version: 0, latestRevision: { number: 1, digest: c.latestRevision!.digest } });
  });

  test('changed lowcode content saves revision 2, active at once; revision 1 is superseded; ETag follows', async () => {
    const c = await create(lowcode());
    const r = await patch(c.id, { elements: [{ name: 'greeting', code: 'return "hello"' }, { name: 'hidden', code: 'return 1', visible: false }] });
    expect(r.status).toBe(200);
    expect(r.headers.get('etag')).toBe('"1"');
    expect(r.body).toMatchObject({ version: 1, latestRevision: { number: 2, status: 'active' } });
    expect(r.body.activeRevision).toEqual(r.body.latestRevision);
    expect(r.body.latestRevision!.digest).not.toBe(c.latestRevision!.digest);
    const list = await revisionsOf(c.id);
    expect(list.map((x) => [x.number, x.status])).toEqual([[2, 'active'], [1, 'superseded']]);
    const one = await h.json<Revision>('GET', `/api/v1/components/${c.id}/revisions/${c.latestRevision!.id}`, { key: compAdmin.key });
    expect(one.body).toMatchObject({ number: 1, status: 'superseded', elements: c.latestRevision!.elements });
  });

  test('name and description alone: the version moves, no revision', async () => {
    const c = await create(lowcode());
    const r = await patch(c.id, { name: 'Renamed', description: 'now described' });
    expect(r.body).toMatchObject({ name: 'Renamed', description: 'now described', version: 1, latestRevision: { number: 1 } });
    const cleared = await patch(c.id, { description: null });
    expect(cleared.body).toMatchObject({ description: null, version: 2 });
  });

  test('node: saved code stays pending and never replaces what is active; results alone make a revision', async () => {
    const c = await create({ name: 'N', kind: 'node', source: 'export default async () => 1;' });
    const r = await patch(c.id, { source: 'export default async () => 2;' });
    expect(r.body).toMatchObject({ version: 1, activeRevision: null, latestRevision: { number: 2, status: 'pending', source: 'export default async () => 2;' } });
    const withResults = await patch(c.id, { results: [{ name: 'default' }] });
    expect(withResults.body.latestRevision).toMatchObject({ number: 3, status: 'pending', source: 'export default async () => 2;', results: [{ name: 'default', visible: true }] });
    expect((await revisionsOf(c.id)).map((x) => x.status)).toEqual(['pending', 'pending', 'pending']);
  });

  test('content fields of another kind and invalid source are refused; nothing changes', async () => {
    const c = await create(lowcode());
    const foreign = await patch(c.id, { source: 'export default 1' });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors![0]!.pointer).toBe('/source');
    const broken = await patch(c.id, { elements: [{ name: 'greeting', code: 'return (' }] });
    expect(broken.status).toBe(422);
    expect(broken.body).toMatchObject({ code: 'SOURCE_INVALID', errors: [{ pointer: '/elements/0/code' }] });
    expect(await revisionsOf(c.id)).toHaveLength(1);
    expect((await h.json<Component>('GET', `/api/v1/components/${c.id}`, { key: compAdmin.key })).body.version).toBe(0);
  });

  test('version mismatch → 409 VERSION_CONFLICT with currentVersion; If-Match mismatch → 412; matching ones pass', async () => {
    const c = await create(lowcode());
    await patch(c.id, { name: 'v1' });
    const stale = await patch(c.id, { name: 'v2', version: 0 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ title: 'Version conflict', code: 'VERSION_CONFLICT', currentVersion: 1 });
    const wrongTag = await patch(c.id, { name: 'v2' }, compAdmin.key, { 'if-match': '"0"' });
    expect(wrongTag.status).toBe(412);
    expect(wrongTag.body).toMatchObject({ code: 'PRECONDITION_FAILED', currentVersion: 1 });
    // If-Match compares strongly: a weak tag of the current version does not match.
    const weak = await patch(c.id, { name: 'v2' }, compAdmin.key, { 'if-match': 'W/"1"' });
    expect(weak.status).toBe(412);
    const ok = await patch(c.id, { name: 'v2', version: 1 }, compAdmin.key, { 'if-match': '"7", "1"' });
    expect(ok.body).toMatchObject({ name: 'v2', version: 2 });
  });

  test('concurrent versioned updates from one version: exactly one wins', async () => {
    const c = await create(lowcode());
    const results = await Promise.all([1, 2, 3, 4].map((i) => patch(c.id, { version: 0, elements: [{ name: 'greeting', code: `return ${i}` }] })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(3);
    expect(await revisionsOf(c.id)).toHaveLength(2);
  });

  test('concurrent unversioned content updates all land, numbered in turn, exactly one active', async () => {
    const c = await create(lowcode());
    const results = await Promise.all([1, 2, 3, 4].map((i) => patch(c.id, { elements: [{ name: 'greeting', code: `return ${i}` }] })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const list = await revisionsOf(c.id);
    expect(list.map((x) => x.number)).toEqual([5, 4, 3, 2, 1]);
    expect(list.filter((x) => x.status === 'active').map((x) => x.number)).toEqual([5]);
    expect((await h.json<Component>('GET', `/api/v1/components/${c.id}`, { key: compAdmin.key })).body).toMatchObject({ version: 4, activeRevision: { number: 5 } });
  });

  test('unknown or malformed ids are 404', async () => {
    const c = await create(lowcode());
    for (const path of [`/api/v1/components/${crypto.randomUUID()}`, '/api/v1/components/not-a-uuid', `/api/v1/components/${c.id}/revisions/${crypto.randomUUID()}`, `/api/v1/components/${c.id}/revisions/nope`]) {
      const r = await h.json<Problem>('GET', path, { key: compAdmin.key });
      expect(r.status).toBe(404);
    }
  });

  test('list: paged, newest first', async () => {
    const a = await create(lowcode({ name: 'ListA' }));
    await Bun.sleep(5); // distinct createdAt: equal timestamps fall back to the id tie-break
    const b = await create(lowcode({ name: 'ListB' }));
    const r = await h.json<{ data: Component[]; meta: { offset: number; limit: number; hasMore: boolean } }>('GET', '/api/v1/components?limit=2', { key: compAdmin.key });
    expect(r.body.meta).toEqual({ offset: 0, limit: 2, hasMore: true });
    expect(r.body.data.map((c) => c.id)).toEqual([b.id, a.id]);
    expect(r.body.data[0]!.latestRevision).toMatchObject({ number: 1 });
    expect((await h.json<Problem>('GET', '/api/v1/components?limit=x', { key: compAdmin.key })).status).toBe(400);
  });

  test('list: the latest and active revision are reachable by their record names', async () => {
    const c = await create(lowcode({ name: 'RelList' }));
    await patch(c.id, { elements: [{ name: 'greeting', code: 'return 2;' }] });
    const filter = encodeURIComponent(JSON.stringify({ and: [{ field: 'name', op: 'eq', value: 'RelList' }, { field: 'latestRevision.number', op: 'eq', value: 2 }] }));
    const r = await h.json<{ data: Record<string, unknown>[] }>('GET', `/api/v1/components?filter=${filter}&fields=id,latestRevision.number,activeRevision.status`, { key: compAdmin.key });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([{ id: c.id, 'latestRevision.number': 2, 'activeRevision.status': 'active' }]);
  });
});

describe('roles and workspaces', () => {
  test('ENDPOINT_ADMIN reads but may not change; AGENT_ADMIN may not read', async () => {
    const c = await create(lowcode());
    expect((await h.json('GET', `/api/v1/components/${c.id}`, { key: endpointAdmin.key })).status).toBe(200);
    expect((await h.json('GET', '/api/v1/components', { key: endpointAdmin.key })).status).toBe(200);
    expect((await h.json('GET', `/api/v1/components/${c.id}/revisions`, { key: endpointAdmin.key })).status).toBe(200);
    expect((await h.json('POST', '/api/v1/components', { key: endpointAdmin.key, body: lowcode() })).status).toBe(403);
    expect((await patch(c.id, { name: 'x' }, endpointAdmin.key)).status).toBe(403);
    expect((await h.json('DELETE', `/api/v1/components/${c.id}`, { key: endpointAdmin.key })).status).toBe(403);
    expect((await h.json('GET', `/api/v1/components/${c.id}`, { key: agentAdmin.key })).status).toBe(403);
    expect((await h.json('GET', '/api/v1/components', { key: agentAdmin.key })).status).toBe(403);
  });

  test('another workspace\'s component is 404 and absent from the list', async () => {
    const c = await create(lowcode());
    expect((await h.json('GET', `/api/v1/components/${c.id}`, { key: outsider.key })).status).toBe(404);
    expect((await patch(c.id, { name: 'x' }, outsider.key)).status).toBe(404);
    expect((await h.json('DELETE', `/api/v1/components/${c.id}`, { key: outsider.key })).status).toBe(404);
    const mine = await create(lowcode({ name: 'Outside' }), outsider.key);
    expect(mine.workspaceId).toBe(otherWorkspace);
    const list = await h.json<{ data: Component[] }>('GET', '/api/v1/components?limit=10000', { key: outsider.key });
    expect(list.body.data.map((x) => x.id)).toEqual([mine.id]);
  });

  test('create in a named workspace: members only (404 otherwise); INSTANCE_ADMIN anywhere existing', async () => {
    expect((await h.json('POST', '/api/v1/components', { key: compAdmin.key, body: lowcode({ workspaceId: otherWorkspace }) })).status).toBe(404);
    const admin = await h.json<Component>('POST', '/api/v1/components', { body: lowcode({ workspaceId: otherWorkspace }) });
    expect(admin.status).toBe(201);
    expect(admin.body.workspaceId).toBe(otherWorkspace);
    expect((await h.json('POST', '/api/v1/components', { body: lowcode({ workspaceId: crypto.randomUUID() }) })).status).toBe(404);
  });
});

describe('delete and dependents', () => {
  async function insertEndpoint(fields: { componentId?: string | null; guardComponentId?: string; status: 'active' | 'disabled'; workspaceId?: string }) {
    const id = crypto.randomUUID();
    const now = new Date();
    await h.db.read((q) => q.insert(h.db.t.endpoints).values({
      id, workspaceId: fields.workspaceId ?? defaultWorkspace, name: `ep-${id.slice(0, 8)}`, description: null, method: 'POST', path: `/x/${id}`, shape: `POST /x/${id}`,
      status: fields.status, componentId: fields.componentId ?? null,
      definition: { successStatus: 200, timeoutMs: 10000, ...(fields.guardComponentId ? { guard: { type: 'component', componentId: fields.guardComponentId } } : {}) },
      contractStatus: null, version: 0, createdBy: compAdmin.id, createdAt: now, updatedAt: now,
    }));
    return id;
  }
  async function insertAgent(config: Record<string, unknown>, policy: Record<string, unknown> = {}, workspaceId = defaultWorkspace) {
    const id = crypto.randomUUID();
    const now = new Date();
    await h.db.read((q) => q.insert(h.db.t.agents).values({
      id, workspaceId, name: `agent-${id.slice(0, 8)}`, desc: null, status: 'ACTIVE', ownerId: compAdmin.id, ownerType: 'USER',
      serviceAccountUserId: null, metadata: {}, config, policy, version: 0, createdAt: now, updatedAt: now,
    }));
    return id;
  }
  const setEndpointStatus = (id: string, status: 'active' | 'disabled') =>
    h.db.read((q) => q.update(h.db.t.endpoints).set({ status }).where(eq(h.db.t.endpoints.id, id)));

  test('an unused component is deleted (204) with its revisions; then 404', async () => {
    const c = await create(lowcode());
    const r = await h.json('DELETE', `/api/v1/components/${c.id}`, { key: compAdmin.key });
    expect(r.status).toBe(204);
    expect((await h.json('GET', `/api/v1/components/${c.id}`, { key: compAdmin.key })).status).toBe(404);
    const rows = await h.db.read((q) => q.select().from(h.db.t.componentRevisions).where(eq(h.db.t.componentRevisions.componentId, c.id)));
    expect(rows).toHaveLength(0);
  });

  test('refused with 409 COMPONENT_IN_USE while an Endpoint binds it, active or disabled; free once the Endpoint is gone', async () => {
    const c = await create(lowcode());
    const endpointId = await insertEndpoint({ componentId: c.id, status: 'active' });
    const r = await h.json<Problem>('DELETE', `/api/v1/components/${c.id}`, { key: compAdmin.key });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('COMPONENT_IN_USE');
    expect(r.body.dependents).toEqual([{ type: 'endpoint', id: endpointId, name: `ep-${endpointId.slice(0, 8)}`, pointer: '/componentId' }]);
    expect(r.body.detail).toContain(endpointId);
    await setEndpointStatus(endpointId, 'disabled');
    const disabled = await h.json<Problem>('DELETE', `/api/v1/components/${c.id}`, { key: compAdmin.key });
    expect(disabled.status).toBe(409);
    expect(disabled.body.dependents).toEqual([expect.objectContaining({ type: 'endpoint', id: endpointId, pointer: '/componentId' })]);
    await h.db.read((q) => q.delete(h.db.t.endpoints).where(eq(h.db.t.endpoints.id, endpointId)));
    expect((await h.json('DELETE', `/api/v1/components/${c.id}`, { key: compAdmin.key })).status).toBe(204);
  });

  test("references from another workspace (which never resolve) neither block the delete nor show in it", async () => {
    const c = await create(lowcode());
    await insertEndpoint({ componentId: c.id, status: 'disabled', workspaceId: otherWorkspace });
    await insertEndpoint({ componentId: crypto.randomUUID(), guardComponentId: c.id, status: 'disabled', workspaceId: otherWorkspace });
    await insertAgent({ plugins: [{ id: 'p', name: 'n', componentId: c.id }] }, {}, otherWorkspace);
    const r = await h.json('DELETE', `/api/v1/components/${c.id}`, { key: compAdmin.key });
    expect(r.status).toBe(204);
  });

  test('an active Endpoint using it as its guard blocks too', async () => {
    const v = await create({ name: 'G', kind: 'json-validator', schema: { type: 'object' } });
    const other = await create(lowcode());
    const endpointId = await insertEndpoint({ componentId: other.id, guardComponentId: v.id, status: 'active' });
    const r = await h.json<Problem>('DELETE', `/api/v1/components/${v.id}`, { key: compAdmin.key });
    expect(r.status).toBe(409);
    expect(r.body.dependents).toEqual([expect.objectContaining({ type: 'endpoint', id: endpointId, pointer: '/guard/componentId' })]);
    await setEndpointStatus(endpointId, 'disabled');
  });

  test('an agent plugin (config or policy) blocks, with the pointer to the plugin', async () => {
    const c = await create(lowcode());
    const agentId = await insertAgent({ plugins: [{ id: 'p0', name: 'other', componentId: crypto.randomUUID() }, { id: 'p1', name: 'tool', componentId: c.id }] });
    const r = await h.json<Problem>('DELETE', `/api/v1/components/${c.id}`, { key: compAdmin.key });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'COMPONENT_IN_USE', dependents: [{ type: 'agent', id: agentId, pointer: '/config/plugins/1/componentId' }] });
    await h.db.read((q) => q.update(h.db.t.agents).set({ config: {}, policy: { plugins: [{ id: 'p', name: 'n', componentId: c.id }] } }).where(eq(h.db.t.agents.id, agentId)));
    const again = await h.json<Problem>('DELETE', `/api/v1/components/${c.id}`, { key: compAdmin.key });
    expect(again.body.dependents).toEqual([expect.objectContaining({ type: 'agent', pointer: '/policy/plugins/0/componentId' })]);
    // A plugin's componentId is stored as sent: the id in capitals names the same component.
    await h.db.read((q) => q.update(h.db.t.agents).set({ config: { plugins: [{ id: 'p', name: 'n', componentId: c.id.toUpperCase() }] }, policy: {} }).where(eq(h.db.t.agents.id, agentId)));
    const capitals = await h.json<Problem>('DELETE', `/api/v1/components/${c.id}`, { key: compAdmin.key });
    expect(capitals.status).toBe(409);
    expect(capitals.body.dependents).toEqual([expect.objectContaining({ type: 'agent', id: agentId, pointer: '/config/plugins/0/componentId' })]);
    // A mere mention (not a plugin's componentId) is not a dependency.
    await h.db.read((q) => q.update(h.db.t.agents).set({ config: { note: c.id }, policy: {} }).where(eq(h.db.t.agents.id, agentId)));
    expect((await h.json('DELETE', `/api/v1/components/${c.id}`, { key: compAdmin.key })).status).toBe(204);
  });

  test('If-Match on DELETE is honoured (412)', async () => {
    const c = await create(lowcode());
    const r = await h.json<Problem>('DELETE', `/api/v1/components/${c.id}`, { key: compAdmin.key, headers: { 'if-match': '"7"' } });
    expect(r.status).toBe(412);
    expect((await h.json('DELETE', `/api/v1/components/${c.id}`, { key: compAdmin.key, headers: { 'if-match': '"0"' } })).status).toBe(204);
  });
});

describe('audit, the active-revision hook and index publication', () => {
  test('create, update and delete are audited with actor and versions', async () => {
    const c = await create(lowcode());
    await patch(c.id, { elements: [{ name: 'greeting', code: 'return 2' }] });
    await patch(c.id, { name: 'renamed' });
    await h.json('DELETE', `/api/v1/components/${c.id}`, { key: compAdmin.key });
    const rows = (await auditOf(c.id)).sort((a, b) => a.at.getTime() - b.at.getTime() || (a.beforeVersion ?? -1) - (b.beforeVersion ?? -1));
    expect(rows.map((r) => [r.action, r.beforeVersion, r.afterVersion, r.actorId, r.resourceType, r.workspaceId])).toEqual([
      ['component.create', null, 0, compAdmin.id, 'component', defaultWorkspace],
      ['component.update', 0, 1, compAdmin.id, 'component', defaultWorkspace],
      ['component.update', 1, 2, compAdmin.id, 'component', defaultWorkspace],
      ['component.delete', 2, null, compAdmin.id, 'component', defaultWorkspace],
    ]);
    expect(rows[1]!.details).toMatchObject({ changed: ['content'], revisionNumber: 2 });
    expect(rows[2]!.details).toEqual({ changed: ['name'] });
  });

  test('a new active revision calls the hook, bumps the index version and publishes it after commit', async () => {
    const before = await currentIndexVersion(h.db);
    const hooks = h.hookCalls.length;
    const published = h.published.length;
    const c = await create(lowcode());
    const first = await currentIndexVersion(h.db);
    expect(first).toBeGreaterThan(before);
    expect(h.published.slice(published)).toEqual([first]);
    expect(h.hookCalls.slice(hooks).map((x) => [x.component.id, x.revision.number, x.revision.status])).toEqual([[c.id, 1, 'active']]);

    await patch(c.id, { elements: [{ name: 'greeting', code: 'return 3' }] });
    expect(await currentIndexVersion(h.db)).toBe(first + 1);
    expect(h.published.slice(published)).toEqual([first, first + 1]);
    const last = h.hookCalls[h.hookCalls.length - 1]!;
    expect(last.component).toMatchObject({ id: c.id, version: 1 });
    expect(last.revision).toMatchObject({ number: 2, status: 'active', content: { kind: 'lowcode', elements: [{ name: 'greeting', code: 'return 3', visible: true }] } });
  });

  test('changes that do not touch the runtime neither call the hook nor bump: renames, node saves, no-ops', async () => {
    const c = await create(lowcode());
    const n = await create({ name: 'N', kind: 'node', source: 'export default async () => 1' });
    const version = await currentIndexVersion(h.db);
    const hooks = h.hookCalls.length;
    await patch(c.id, { name: 'other name' });
    await patch(c.id, { elements: c.latestRevision!.elements });
    await patch(n.id, { source: 'export default async () => 2' });
    expect(await currentIndexVersion(h.db)).toBe(version);
    expect(h.hookCalls.length).toBe(hooks);
  });

  test('the hook runs inside the transaction: when it fails, nothing of the change remains', async () => {
    const c = await create(lowcode());
    const version = await currentIndexVersion(h.db);
    h.failHook = new Error('endpoint side refused');
    try {
      const r = await patch(c.id, { elements: [{ name: 'greeting', code: 'return 4' }] });
      expect(r.status).toBe(500);
    } finally {
      h.failHook = null;
    }
    expect(await revisionsOf(c.id)).toHaveLength(1);
    expect((await h.json<Component>('GET', `/api/v1/components/${c.id}`, { key: compAdmin.key })).body).toMatchObject({ version: 0, activeRevision: { number: 1, status: 'active' } });
    expect(await currentIndexVersion(h.db)).toBe(version);
    expect((await auditOf(c.id)).map((r) => r.action)).toEqual(['component.create']);
  });
});

describe('resolveRevision', () => {
  test('lowcode/json-validator follow the latest active revision; a digest pins its revision', async () => {
    const c = await create(lowcode());
    await patch(c.id, { elements: [{ name: 'greeting', code: 'return 5' }] });
    const latest = await resolveRevision(h.db, c.id);
    expect(latest).toMatchObject({ component: { id: c.id }, revision: { number: 2, status: 'active' } });
    const pinned = await resolveRevision(h.db, c.id, c.latestRevision!.digest);
    expect(pinned?.revision).toMatchObject({ number: 1, status: 'superseded', content: { kind: 'lowcode', elements: c.latestRevision!.elements } });
    expect(await resolveRevision(h.db, c.id, `sha256:${'0'.repeat(64)}`)).toBeNull();
    expect(await resolveRevision(h.db, crypto.randomUUID())).toBeNull();
    expect(await resolveRevision(h.db, 'not-a-uuid')).toBeNull();
  });

  test('node without a selected ready revision resolves to null unless pinned', async () => {
    const n = await create({ name: 'N', kind: 'node', source: 'export default async () => 1' });
    expect(await resolveRevision(h.db, n.id)).toBeNull();
    const pinned = await resolveRevision(h.db, n.id, n.latestRevision!.digest);
    expect(pinned?.revision).toMatchObject({ status: 'pending', content: { source: expect.stringContaining('export default') } });
  });

  test('equal content in two components has equal digests', async () => {
    const a = await create(lowcode({ name: 'A' }));
    const b = await create({ kind: 'lowcode', name: 'B', elements: [{ visible: true, code: 'return "hi " + input.body.name', name: 'greeting' }] });
    expect(a.latestRevision!.digest).toBe(b.latestRevision!.digest);
    const rows = await h.db.read((q) => q.select().from(h.db.t.componentRevisions).where(and(eq(h.db.t.componentRevisions.digest, a.latestRevision!.digest))));
    expect(rows.length).toBeGreaterThanOrEqual(2);
  });
});

});
