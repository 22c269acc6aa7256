// The Endpoint control plane: definitions, PATCH locking, activation and route conflicts,
// contract validation, settings, statistics shape, OpenAPI, audit and index publication.
import { describe, expect, test } from 'bun:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { platformFor, type TestPlatform } from '../helpers/platform.ts';
import { databaseCases } from '../helpers/databases.ts';
import { currentIndexVersion } from '../../src/core/definitions/index-version.ts';

for (const database of databaseCases()) describe(`on ${database.name}`, () => {
  let p: TestPlatform;
  let adminKey: string;
  let outsiderKey: string;
  const published: number[] = [];

  platformFor(database, async (started) => {
    p = started;
    p.publisher.subscribe(async (v) => void published.push(v));
    const u = await p.json<{ id: string }>('POST', '/api/v1/users', { body: { name: 'ea', email: 'ea@example.com', roles: ['ENDPOINT_ADMIN'], platformAccess: true } });
    adminKey = (await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: u.body.id, name: 'ea' } })).body.key;
    const ws = await p.json<{ id: string }>('POST', '/api/v1/workspaces', { body: { name: 'elsewhere' } });
    const o = await p.json<{ id: string }>('POST', '/api/v1/users', { body: { name: 'eo', email: 'eo@example.com', roles: ['ENDPOINT_ADMIN'], platformAccess: true, workspaceIds: [ws.body.id] } });
    outsiderKey = (await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: o.body.id, name: 'eo' } })).body.key;
  });

  const create = (body: Record<string, unknown>, key = adminKey) => p.json<Record<string, any>>('POST', '/api/v1/endpoints', { key, body });
  const staticDef = (path: string, extra: Record<string, unknown> = {}) => ({ name: `static ${path}`, method: 'GET', path, staticResponse: { status: 200, body: { ok: true } }, ...extra });

  describe('definitions', () => {
    test('create answers 201, disabled, version 0, with defaults and a contract status', async () => {
      const r = await create(staticDef('/hello'));
      expect(r.status).toBe(201);
      expect(r.headers.get('etag')).toBe('"0"');
      expect(r.body).toMatchObject({ status: 'disabled', version: 0, method: 'GET', path: '/hello', successStatus: 200, timeoutMs: 10000, componentId: null });
      expect(r.body.contractStatus).toMatchObject({ valid: true, errors: [] });
      expect((await p.json('GET', `/api/v1/endpoints/${r.body.id}`, { key: adminKey })).body).toEqual(r.body);
    });

    test.each([
      ['/a//b', 'Empty segments'],
      ['/a/../b', 'Dot segments'],
      ['/a/*', 'Wildcards'],
      ['/a/:x/:x', 'used twice'],
      ['/a/:9x', 'a name is'],
      ['/x'.repeat(1025), '2048'],
      ['no-slash', ''],
      ['/api/v1/agents', 'reserved'],
    ])('path %s → 422 at /path', async (path, message) => {
      const r = await create(staticDef(path));
      expect(r.status).toBe(422);
      expect(r.body.errors.some((e: { pointer: string; message: string }) => e.pointer === '/path' && e.message.includes(message))).toBe(true);
    });

    test('an unknown method, bad statuses and unknown fields → 422 with pointers', async () => {
      const r = await create({ ...staticDef('/bad'), method: 'TRACE', successStatus: 302, validationFailure: { status: 500, body: {} }, extra: 1 });
      expect(r.status).toBe(422);
      const pointers = r.body.errors.map((e: { pointer: string }) => e.pointer);
      expect(pointers).toEqual(expect.arrayContaining(['/method', '/successStatus', '/validationFailure/status', '/extra']));
    });

    test('a static body, validation-failure body or inputs over 1 MiB as JSON → 422 at each; up to 1 MiB is stored', async () => {
      const over = 'x'.repeat(1024 * 1024); // 1 MiB + 2 bytes as JSON
      const r = await create({ ...staticDef('/too-large'), staticResponse: { status: 200, body: over }, guard: { type: 'inline', schema: {} }, validationFailure: { status: 400, body: [over] }, inputs: { text: over } });
      expect(r.status).toBe(422);
      expect(r.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/staticResponse/body', '/validationFailure/body', '/inputs']);
      expect(r.body.errors[0].message).toBe('At most 1048576 bytes as JSON (UTF-8)');
      // Multi-byte characters count as UTF-8: 350,000 × 3 bytes is over, though 350,002 characters are not.
      expect((await create({ ...staticDef('/too-large-utf8'), staticResponse: { status: 200, body: '€'.repeat(350_000) } })).status).toBe(422);
      const fits = await create({ ...staticDef('/large'), staticResponse: { status: 200, body: 'x'.repeat(1024 * 1024 - 2) } });
      expect(fits.status).toBe(201);
      const patched = await p.json<Record<string, any>>('PATCH', `/api/v1/endpoints/${fits.body.id}`, { key: adminKey, body: { inputs: { text: over } } });
      expect(patched.status).toBe(422);
      expect(patched.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/inputs']);
    });

    test('other workspaces see 404; roles without ENDPOINT_ADMIN get 403', async () => {
      const r = await create(staticDef('/private'));
      expect((await p.json('GET', `/api/v1/endpoints/${r.body.id}`, { key: outsiderKey })).status).toBe(404);
      const u = await p.json<{ id: string }>('POST', '/api/v1/users', { body: { name: 'inv', email: 'inv@example.com', roles: ['ENDPOINT_INVOKE'], platformAccess: true } });
      const k = (await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: u.body.id, name: 'i' } })).body.key;
      expect((await p.json('GET', `/api/v1/endpoints/${r.body.id}`, { key: k })).status).toBe(403);
    });
  });

  describe('list', () => {
    test('the definition\'s fields are listed, filtered and sorted by the names the record carries', async () => {
      await create(staticDef('/listed/a', { name: 'listed a', successStatus: 201, timeoutMs: 500 }));
      await create(staticDef('/listed/b', { name: 'listed b', timeoutMs: 900 }));
      const like = encodeURIComponent(JSON.stringify({ and: [{ field: 'name', op: 'like', value: 'listed %' }, { field: 'timeoutMs', op: 'lt', value: 1000 }] }));
      const r = await p.json<{ data: Record<string, unknown>[] }>('GET', `/api/v1/endpoints?filter=${like}&sort=-timeoutMs&fields=name,successStatus,timeoutMs`, { key: adminKey });
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual([{ name: 'listed b', successStatus: 200, timeoutMs: 900 }, { name: 'listed a', successStatus: 201, timeoutMs: 500 }]);
      const bracket = await p.json<{ data: Record<string, unknown>[] }>('GET', '/api/v1/endpoints?filter[field]=successStatus&filter[op]=eq&filter[value]=201&fields=name,staticResponse', { key: adminKey });
      expect(bracket.body.data).toEqual([{ name: 'listed a', staticResponse: { status: 200, body: { ok: true } } }]);
    });

    test('the definition\'s scalars keep their types: numbers compare as numbers, bad values are 400; documents can be reached into', async () => {
      await create(staticDef('/typed/a', { name: 'typed a', timeoutMs: 2000 }));
      await create(staticDef('/typed/b', { name: 'typed b', timeoutMs: 10000, staticResponse: { status: 201, body: null } }));
      await create({ name: 'typed c', method: 'GET', path: '/typed/c', timeoutMs: 3000, noResult: true });
      const list = async (query: string) => p.json<{ data: Record<string, unknown>[]; errors?: { pointer: string }[] }>('GET', `/api/v1/endpoints?filter[and][0][field]=name&filter[and][0][op]=startsWith&filter[and][0][value]=typed%20&${query}`, { key: adminKey });
      const names = (r: { body: { data: Record<string, unknown>[] } }) => r.body.data.map((row) => row.name);

      // As text, "10000" < "2000" < "3000": both of these would come out wrong.
      const sorted = await list('sort=timeoutMs&fields=name,timeoutMs');
      expect(sorted.status).toBe(200);
      expect(sorted.body.data).toEqual([{ name: 'typed a', timeoutMs: 2000 }, { name: 'typed c', timeoutMs: 3000 }, { name: 'typed b', timeoutMs: 10000 }]);
      expect(names(await list('filter[and][1][field]=timeoutMs&filter[and][1][op]=gte&filter[and][1][value]=2500&sort=name'))).toEqual(['typed b', 'typed c']);

      for (const [query, pointer] of [
        ['filter[and][1][field]=timeoutMs&filter[and][1][op]=gt&filter[and][1][value]=abc', '/query/filter/and/1/value'],
        ['filter[and][1][field]=timeoutMs&filter[and][1][op]=like&filter[and][1][value]=1%25', '/query/filter/and/1/op'],
        ['filter[and][1][field]=noResult&filter[and][1][op]=eq&filter[and][1][value]=maybe', '/query/filter/and/1/value'],
      ] as const) {
        const bad = await list(query);
        expect(bad.status).toBe(400);
        expect(bad.body.errors?.map((e) => e.pointer)).toContain(pointer);
      }

      expect(names(await list('filter[and][1][field]=noResult&filter[and][1][op]=true'))).toEqual(['typed c']);
      expect(names(await list('filter[and][1][field]=noResult&filter[and][1][op]=eq&filter[and][1][value]=true'))).toEqual(['typed c']);
      expect(names(await list('filter[and][1][field]=staticResponse.status&filter[and][1][op]=eq&filter[and][1][value]=201'))).toEqual(['typed b']);
    });
  });

  describe('PATCH', () => {
    test('replaces fields, null clears, version increments; stale version → 409, stale If-Match → 412', async () => {
      const r = await create(staticDef('/patch-me', { description: 'first', inputs: { a: 1 } }));
      const id = r.body.id;
      const u = await p.json<Record<string, any>>('PATCH', `/api/v1/endpoints/${id}`, { key: adminKey, body: { description: null, inputs: { b: 2 }, version: 0 } });
      expect(u.status).toBe(200);
      expect(u.body).toMatchObject({ version: 1, description: null, inputs: { b: 2 } });
      expect(u.headers.get('etag')).toBe('"1"');
      const stale = await p.json<Record<string, any>>('PATCH', `/api/v1/endpoints/${id}`, { key: adminKey, body: { name: 'x', version: 0 } });
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({ code: 'VERSION_CONFLICT', currentVersion: 1 });
      expect((await p.json('PATCH', `/api/v1/endpoints/${id}`, { key: adminKey, body: { name: 'y' }, headers: { 'if-match': '"0"' } })).status).toBe(412);
    });

    test('DELETE with If-Match deletes only that version: a stale one → 412 and the Endpoint stays', async () => {
      const r = await create(staticDef('/delete-if-match'));
      const id = r.body.id;
      await p.json('PATCH', `/api/v1/endpoints/${id}`, { key: adminKey, body: { description: 'v1' } });
      const stale = await p.json<Record<string, any>>('DELETE', `/api/v1/endpoints/${id}`, { key: adminKey, headers: { 'if-match': '"0"' } });
      expect(stale.status).toBe(412);
      expect(stale.body).toMatchObject({ code: 'PRECONDITION_FAILED', currentVersion: 1 });
      expect((await p.json('GET', `/api/v1/endpoints/${id}`, { key: adminKey })).status).toBe(200);
      expect((await p.json('DELETE', `/api/v1/endpoints/${id}`, { key: adminKey, headers: { 'if-match': '"1"' } })).status).toBe(204);
      expect((await p.json('GET', `/api/v1/endpoints/${id}`, { key: adminKey })).status).toBe(404);
    });

    test('activate and disable honour If-Match: a stale one → 412 and the status stays', async () => {
      const r = await create(staticDef('/activate-if-match'));
      const id = r.body.id;
      const stale = await p.json<Record<string, any>>('POST', `/api/v1/endpoints/${id}/activate`, { key: adminKey, headers: { 'if-match': '"7"' } });
      expect(stale.status).toBe(412);
      expect(stale.body).toMatchObject({ code: 'PRECONDITION_FAILED', currentVersion: 0 });
      const active = await p.json<Record<string, any>>('POST', `/api/v1/endpoints/${id}/activate`, { key: adminKey, headers: { 'if-match': '"0"' } });
      expect(active.body).toMatchObject({ status: 'active', version: 1 });
      expect((await p.json('POST', `/api/v1/endpoints/${id}/disable`, { key: adminKey, headers: { 'if-match': '"0"' } })).status).toBe(412);
      expect((await p.json<Record<string, any>>('GET', `/api/v1/endpoints/${id}`, { key: adminKey })).body.status).toBe('active');
      expect((await p.json<Record<string, any>>('POST', `/api/v1/endpoints/${id}/disable`, { key: adminKey, headers: { 'if-match': '"1"' } })).body.status).toBe('disabled');
    });

    test('a bad PATCH changes nothing', async () => {
      const r = await create(staticDef('/unchanged'));
      const before = await p.json('GET', `/api/v1/endpoints/${r.body.id}`, { key: adminKey });
      for (const body of [{ path: '/a//b' }, { timeoutMs: 60001 }, { guard: { type: 'inline' } }, { nope: true }]) {
        expect((await p.json('PATCH', `/api/v1/endpoints/${r.body.id}`, { key: adminKey, body })).status).toBe(422);
      }
      expect((await p.json('GET', `/api/v1/endpoints/${r.body.id}`, { key: adminKey })).body).toEqual(before.body);
    });
  });

  describe('activation', () => {
    test('activate publishes a new index version; disable too; delete needs disabled', async () => {
      const r = await create(staticDef('/lifecycle'));
      const before = await currentIndexVersion(p.db);
      const a = await p.json<Record<string, any>>('POST', `/api/v1/endpoints/${r.body.id}/activate`, { key: adminKey });
      expect(a.status).toBe(200);
      expect(a.body).toMatchObject({ status: 'active', version: 1 });
      const after = await currentIndexVersion(p.db);
      expect(after).toBe(before + 1);
      expect(published).toContain(after);
      const del = await p.json<Record<string, any>>('DELETE', `/api/v1/endpoints/${r.body.id}`, { key: adminKey });
      expect(del.status).toBe(409);
      expect(del.body.code).toBe('ENDPOINT_ACTIVE');
      expect((await p.json('POST', `/api/v1/endpoints/${r.body.id}/disable`, { key: adminKey })).body).toMatchObject({ status: 'disabled', version: 2 });
      expect(await currentIndexVersion(p.db)).toBe(after + 1);
      expect((await p.call('DELETE', `/api/v1/endpoints/${r.body.id}`, { key: adminKey })).status).toBe(204);
      expect((await p.json('GET', `/api/v1/endpoints/${r.body.id}`, { key: adminKey })).status).toBe(404);
    });

    test('same method and shape → 409 ROUTE_CONFLICT naming the other; another method or a static segment does not conflict', async () => {
      const first = await create(staticDef('/orders/:id'));
      await p.json('POST', `/api/v1/endpoints/${first.body.id}/activate`, { key: adminKey });
      const clash = await create(staticDef('/orders/:orderId'));
      const r = await p.json<Record<string, any>>('POST', `/api/v1/endpoints/${clash.body.id}/activate`, { key: adminKey });
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ code: 'ROUTE_CONFLICT', conflictingEndpointId: first.body.id });
      const post = await create({ ...staticDef('/orders/:id'), method: 'POST' });
      expect((await p.json('POST', `/api/v1/endpoints/${post.body.id}/activate`, { key: adminKey })).status).toBe(200);
      const literal = await create(staticDef('/orders/latest'));
      expect((await p.json('POST', `/api/v1/endpoints/${literal.body.id}/activate`, { key: adminKey })).status).toBe(200);
    });

    test('concurrent activations of equal shapes: exactly one wins', async () => {
      const ids = await Promise.all(Array.from({ length: 6 }, async (_, i) => (await create(staticDef('/race/:x', { name: `race ${i}` }))).body.id));
      const results = await Promise.all(ids.map((id) => p.json<Record<string, any>>('POST', `/api/v1/endpoints/${id}/activate`, { key: adminKey })));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'ROUTE_CONFLICT')).toBe(true);
    });

    test('an invalid definition cannot be activated (422 with contract errors)', async () => {
      const r = await create({ name: 'nothing', method: 'GET', path: '/nothing' });
      expect(r.body.contractStatus.valid).toBe(false);
      const a = await p.json<Record<string, any>>('POST', `/api/v1/endpoints/${r.body.id}/activate`, { key: adminKey });
      expect(a.status).toBe(422);
      expect(a.body.code).toBe('INVALID_DEFINITION');
      expect(a.body.errors[0].pointer).toBe('/componentId');
    });

    test('a PATCH that would break an active Endpoint is refused and changes nothing', async () => {
      const r = await create(staticDef('/keep-valid'));
      await p.json('POST', `/api/v1/endpoints/${r.body.id}/activate`, { key: adminKey });
      const bad = await p.json<Record<string, any>>('PATCH', `/api/v1/endpoints/${r.body.id}`, { key: adminKey, body: { staticResponse: null } });
      expect(bad.status).toBe(422);
      expect((await p.json<Record<string, any>>('GET', `/api/v1/endpoints/${r.body.id}`, { key: adminKey })).body.staticResponse).toBeDefined();
    });
  });

  describe('contract validation', () => {
    test('errors and warnings with pointers', async () => {
      const r = await create({
        name: 'v', method: 'POST', path: '/validate-me',
        staticResponse: { status: 200 }, popResult: 'x', noResult: true,
        guard: { type: 'inline', schema: { type: 'object', properties: { code: { type: 'string', pattern: '^[a-z]+$' } } } },
        executionPolicy: { mode: 'SERVICE_ACCOUNT' },
      });
      const v = await p.json<Record<string, any>>('POST', `/api/v1/endpoints/${r.body.id}/validate`, { key: adminKey });
      expect(v.status).toBe(200);
      expect(v.body.valid).toBe(false);
      const errors = v.body.errors.map((e: { pointer: string }) => e.pointer);
      expect(errors).toEqual(expect.arrayContaining(['/popResult', '/executionPolicy/serviceAccountId']));
      const warnings = v.body.warnings.map((w: { pointer: string }) => w.pointer);
      expect(warnings).toEqual(expect.arrayContaining(['/guard/schema/properties/code']));
      expect(warnings.some((w: string) => w.startsWith('/guard/schema'))).toBe(true);
    });

    test('a guard that does not compile is an error', async () => {
      const r = await create({ ...staticDef('/bad-guard'), method: 'POST', guard: { type: 'inline', schema: { type: 'object', properties: { a: { type: 'string', pattern: '(' } } } } });
      expect(r.body.contractStatus.valid).toBe(false);
      expect(r.body.contractStatus.errors[0].pointer).toStartWith('/guard/schema');
    });

    test('a service account that is inactive or without platform access is an error', async () => {
      const sa = await p.json<{ id: string }>('POST', '/api/v1/service-accounts', { body: { name: 'sa-off', roles: [], platformAccess: false } });
      const r = await create({ ...staticDef('/sa'), executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: sa.body.id } });
      expect(r.body.contractStatus.errors).toEqual([expect.objectContaining({ code: 'EXECUTION_ACCOUNT_UNUSABLE', pointer: '/executionPolicy/serviceAccountId' })]);
    });

    test('choosing an execution account needs every control-plane role it holds and its workspace (INSTANCE_ADMIN: any)', async () => {
      const account = async (name: string, roles: string[], workspaceIds?: string[]) =>
        (await p.json<{ id: string }>('POST', '/api/v1/service-accounts', { body: { name, roles, platformAccess: true, ...(workspaceIds ? { workspaceIds } : {}) } })).body.id;
      const runAs = (id: string) => ({ executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: id } });
      const admin = await account('sa-admin', ['INSTANCE_ADMIN']);
      const elsewhere = (await p.json<{ id: string }>('POST', '/api/v1/workspaces', { body: { name: 'sa-elsewhere' } })).body.id;
      const outside = await account('sa-outside', ['ENDPOINT_INVOKE'], [elsewhere]);
      const peer = await account('sa-peer', ['ENDPOINT_ADMIN', 'ENDPOINT_INVOKE']);
      const defaultWorkspace = (await p.json<{ workspaceIds: string[] }>('GET', '/api/v1/me', { key: adminKey })).body.workspaceIds[0]!;
      const straddling = await account('sa-straddling', ['ENDPOINT_ADMIN'], [defaultWorkspace, elsewhere]);

      const escalate = await create({ ...staticDef('/sa-admin'), ...runAs(admin) });
      expect(escalate.status).toBe(403);
      expect(escalate.body.errors).toEqual([{ pointer: '/executionPolicy/serviceAccountId', message: expect.stringContaining('INSTANCE_ADMIN') }]);
      expect((await create({ ...staticDef('/sa-outside'), ...runAs(outside) })).status).toBe(403);
      // Also in the Endpoint's workspace, but in one the caller is not: acting as it would reach there.
      const reach = await create({ ...staticDef('/sa-straddling'), ...runAs(straddling) });
      expect(reach.status).toBe(403);
      expect(reach.body.errors[0].message).toContain('workspaces you do not');
      expect((await p.json('GET', `/api/v1/endpoints?filter=${encodeURIComponent(JSON.stringify({ field: 'path', op: 'eq', value: '/sa-admin' }))}`, { key: adminKey })).body.data).toEqual([]);

      // An account with no more than the caller's roles, in its workspace: allowed; PATCHing it in later is checked too.
      const ok = await create({ ...staticDef('/sa-peer'), ...runAs(peer) });
      expect(ok.status).toBe(201);
      const patched = await p.json<Record<string, any>>('PATCH', `/api/v1/endpoints/${ok.body.id}`, { key: adminKey, body: runAs(admin) });
      expect(patched.status).toBe(403);
      // An INSTANCE_ADMIN may choose the administrator's account; other edits by the ENDPOINT_ADMIN keep it.
      const chosen = await p.json<Record<string, any>>('PATCH', `/api/v1/endpoints/${ok.body.id}`, { body: runAs(admin) });
      expect(chosen.status).toBe(200);
      const renamed = await p.json<Record<string, any>>('PATCH', `/api/v1/endpoints/${ok.body.id}`, { key: adminKey, body: { name: 'renamed' } });
      expect(renamed.status).toBe(200);
      expect(renamed.body.executionPolicy).toEqual({ mode: 'SERVICE_ACCOUNT', serviceAccountId: admin });
    });
  });

  describe('settings', () => {
    test('a new instance starts with saved CALLER; PUT and DELETE change it and bump the index', async () => {
      expect((await p.json('GET', '/api/v1/endpoints/settings')).body).toEqual({ executionPolicy: { mode: 'CALLER' }, currentUser: 'BUSINESS_USER', saved: true });
      const v0 = await currentIndexVersion(p.db);
      const sa = await p.json<{ id: string }>('POST', '/api/v1/service-accounts', { body: { name: 'exec', roles: [], platformAccess: true } });
      const put = await p.json('PUT', '/api/v1/endpoints/settings', { body: { executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: sa.body.id }, currentUser: 'EXECUTION_ACCOUNT' } });
      expect(put.body).toEqual({ executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: sa.body.id }, currentUser: 'EXECUTION_ACCOUNT', saved: true });
      expect(await currentIndexVersion(p.db)).toBe(v0 + 1);
      expect((await p.json('PUT', '/api/v1/endpoints/settings', { body: { executionPolicy: { mode: 'SERVICE_ACCOUNT' } } })).status).toBe(422);
      // The missing account is reported with the schema's findings, not after them.
      const both = await p.json<Record<string, any>>('PUT', '/api/v1/endpoints/settings', { body: { executionPolicy: { mode: 'SERVICE_ACCOUNT' }, currentUser: 'X' } });
      expect(both.status).toBe(422);
      expect(both.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/currentUser', '/executionPolicy/serviceAccountId']);
      expect((await p.call('DELETE', '/api/v1/endpoints/settings')).status).toBe(204);
      expect((await p.json('GET', '/api/v1/endpoints/settings')).body).toEqual({ executionPolicy: { mode: 'SYSTEM' }, currentUser: 'BUSINESS_USER', saved: false });
      expect((await p.json('PUT', '/api/v1/endpoints/settings', { key: adminKey, body: { executionPolicy: { mode: 'CALLER' } } })).status).toBe(403);
      await p.json('PUT', '/api/v1/endpoints/settings', { body: { executionPolicy: { mode: 'CALLER' } } });
    });

    test('CALLER mode may keep a serviceAccountId, which must name a service account (any state); SERVICE_ACCOUNT needs a usable one', async () => {
      const inactive = await p.json<{ id: string }>('POST', '/api/v1/service-accounts', { body: { name: 'parked', roles: [], platformAccess: false, active: false } });
      const user = await p.json<{ id: string }>('POST', '/api/v1/users', { body: { name: 'not-an-account', email: 'naa@example.com', roles: [], platformAccess: true } });
      for (const id of [crypto.randomUUID(), user.body.id]) {
        const r = await p.json<Record<string, any>>('PUT', '/api/v1/endpoints/settings', { body: { executionPolicy: { mode: 'CALLER', serviceAccountId: id } } });
        expect(r.status).toBe(422);
        expect(r.body.errors).toEqual([{ pointer: '/executionPolicy/serviceAccountId', message: 'No service account with this id' }]);
      }
      const kept = await p.json('PUT', '/api/v1/endpoints/settings', { body: { executionPolicy: { mode: 'CALLER', serviceAccountId: inactive.body.id } } });
      expect(kept.body).toEqual({ executionPolicy: { mode: 'CALLER', serviceAccountId: inactive.body.id }, currentUser: 'BUSINESS_USER', saved: true });
      const unusable = await p.json<Record<string, any>>('PUT', '/api/v1/endpoints/settings', { body: { executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: inactive.body.id } } });
      expect(unusable.status).toBe(422);
      await p.json('PUT', '/api/v1/endpoints/settings', { body: { executionPolicy: { mode: 'CALLER' } } });
    });

    test('what GET returns can be PUT back as is: saved is read-only and ignored', async () => {
      const got = await p.json<Record<string, unknown>>('GET', '/api/v1/endpoints/settings');
      const put = await p.json('PUT', '/api/v1/endpoints/settings', { body: { ...got.body, currentUser: 'EXECUTION_ACCOUNT', saved: false } });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({ ...got.body, currentUser: 'EXECUTION_ACCOUNT', saved: true });
      await p.json('PUT', '/api/v1/endpoints/settings', { body: { executionPolicy: { mode: 'CALLER' } } });
    });
  });

  describe('statistics, OpenAPI and audit', () => {
    test('statistics have the right shape before any invocation', async () => {
      const r = await create(staticDef('/stats'));
      const s = await p.json('GET', `/api/v1/endpoints/${r.body.id}/statistics`, { key: adminKey });
      expect(s.body).toEqual({ endpointId: r.body.id, invocations: 0, byStatusClass: { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 }, latencyMs: { p50: 0, p95: 0, p99: 0 }, lastInvokedAt: null });
    });

    test('generated OpenAPI documents are valid and hold only active Endpoints', async () => {
      const active = await create({ name: 'doc', method: 'POST', path: '/docs/:itemId', staticResponse: { status: 201, body: { ok: true } }, guard: { type: 'inline', schema: { type: 'object', properties: { n: { type: 'integer', description: 'n' } }, required: ['n'], additionalProperties: false } } });
      await p.json('POST', `/api/v1/endpoints/${active.body.id}/activate`, { key: adminKey });
      const disabled = await create(staticDef('/docs-disabled'));
      const all = await p.json<Record<string, any>>('GET', '/api/v1/endpoints/openapi', { key: adminKey });
      expect(all.status).toBe(200);
      expect(all.body.servers).toEqual([{ url: p.config.ENDPOINT_RUNTIME_URL }]);
      expect(all.body.paths['/docs/{itemId}'].post).toBeDefined();
      expect(all.body.paths['/docs-disabled']).toBeUndefined();
      await SwaggerParser.validate(structuredClone(all.body) as never);
      const one = await p.json<Record<string, any>>('GET', `/api/v1/endpoints/${active.body.id}/openapi`, { key: adminKey });
      expect(Object.keys(one.body.paths)).toEqual(['/docs/{itemId}']);
      expect((await p.json('GET', `/api/v1/endpoints/${disabled.body.id}/openapi`, { key: adminKey })).status).toBe(404);
    });

    test('changes are audited with who, what and versions', async () => {
      const r = await create(staticDef('/audited'));
      await p.json('POST', `/api/v1/endpoints/${r.body.id}/activate`, { key: adminKey });
      // A SELECT without ORDER BY has no order (Postgres returns heap order): in version order.
      const rows = (await p.db.read((q) => q.select().from(p.db.t.audit))).filter((a) => a.resourceId === r.body.id).sort((a, b) => (a.afterVersion ?? 0) - (b.afterVersion ?? 0));
      expect(rows.map((a) => [a.action, a.beforeVersion, a.afterVersion])).toEqual([['endpoint.create', null, 0], ['endpoint.activate', 0, 1]]);
      expect(rows.every((a) => a.actorId !== null && a.kind === 'change')).toBe(true);
    });
  });
});
