// PATCH /api/v1/agents/{agentId}: replace semantics, optimistic locking, lifecycle, ownership.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_KEY, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { databaseCases, dropPostgresSchema } from '../helpers/databases.ts';

for (const database of databaseCases()) describe(`on ${database.name}`, () => {

let p: TestPlatform;
const keys: Record<string, string> = {};
const ids: Record<string, string> = {};
let otherWorkspace: string;

async function principal(name: string, roles: string[], extra: Record<string, unknown> = {}) {
  const u = await p.json<{ id: string }>('POST', '/api/v1/users', { body: { name, email: `${name}@example.com`, roles, platformAccess: true, ...extra } });
  const k = await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: u.body.id, name } });
  ids[name] = u.body.id;
  keys[name] = k.body.key;
}

beforeAll(async () => {
  p = await startTestPlatform(database.env, { postgresSchema: database.postgresSchema });
  otherWorkspace = (await p.json<{ id: string }>('POST', '/api/v1/workspaces', { body: { name: 'other' } })).body.id;
  await principal('owner', ['AGENT_ADMIN']);
  await principal('agentuser', ['AGENT_USER']);
  await principal('plain', []);
  await principal('outsider', ['AGENT_ADMIN'], { workspaceIds: [otherWorkspace] });
});
afterAll(async () => {
  await p.close();
  await dropPostgresSchema(database.postgresSchema);
});

async function newAgent(body: Record<string, unknown> = {}, key = keys.owner) {
  const r = await p.json<Record<string, unknown> & { id: string; version: number }>('POST', '/api/v1/agents', { key, body: { name: 'A', ...body } });
  expect(r.status).toBe(201);
  return r.body;
}
const patch = (id: string, body: unknown, key = keys.owner, headers?: Record<string, string>) =>
  p.json<Record<string, unknown>>('PATCH', `/api/v1/agents/${id}`, { key, body, headers });
const stored = async (id: string) => JSON.stringify((await p.db.read((q) => q.select().from(p.db.t.agents))).find((a) => a.id === id));

describe('create and record shape', () => {
  test('create answers 201 with the whole record at version 0 and an ETag', async () => {
    const r = await p.json('POST', '/api/v1/agents', { key: keys.owner, body: { name: 'Shape', desc: 'd', config: { model: 'scripted' } } });
    expect(r.status).toBe(201);
    expect(r.headers.get('etag')).toBe('"0"');
    expect(Object.keys(r.body).sort()).toEqual(['config', 'createdAt', 'desc', 'id', 'metadata', 'name', 'ownerId', 'ownerType', 'policy', 'serviceAccountUserId', 'status', 'updatedAt', 'version', 'workspaceId'].sort());
    expect(r.body).toMatchObject({ name: 'Shape', desc: 'd', status: 'ACTIVE', ownerId: ids.owner, ownerType: 'USER', version: 0, metadata: {}, policy: {} });
  });

  test('create takes the update fields, version included: a new agent is at version 0 whatever is sent', async () => {
    const r = await p.json('POST', '/api/v1/agents', { key: keys.owner, body: { name: 'Versioned', version: 7 } });
    expect(r.status).toBe(201);
    expect(r.body.version).toBe(0);
    expect(r.headers.get('etag')).toBe('"0"');
    const bad = await p.json('POST', '/api/v1/agents', { key: keys.owner, body: { name: 'Versioned', version: -1 } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ pointer: '/version' })]);
  });

  test('a model that is not enabled → 422 MODEL_NOT_ENABLED at /config/model', async () => {
    const r = await p.json('POST', '/api/v1/agents', { key: keys.owner, body: { name: 'M', config: { model: 'gpt-unknown' } } });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'MODEL_NOT_ENABLED', errors: [{ pointer: '/config/model' }] });
  });
});

describe('update semantics', () => {
  test('returns the whole record, increments version, sets ETag and replaces config/policy/metadata', async () => {
    const a = await newAgent({ config: { model: 'scripted', maxTicks: 5, toolNames: ['a'] }, policy: { maxTicks: 3 }, metadata: { x: 1, y: 2 } });
    const r = await patch(a.id, { config: { maxTicks: 7 }, policy: {}, metadata: { z: true }, desc: 'new' });
    expect(r.status).toBe(200);
    expect(r.headers.get('etag')).toBe('"1"');
    expect(r.body).toMatchObject({ id: a.id, version: 1, desc: 'new', config: { maxTicks: 7 }, policy: {}, metadata: { z: true } });
    expect((r.body.config as Record<string, unknown>).model).toBeUndefined();
    expect(Date.parse(String(r.body.updatedAt))).toBeGreaterThanOrEqual(Date.parse(String(a.updatedAt)));
    const got = await p.json('GET', `/api/v1/agents/${a.id}`, { key: keys.owner });
    expect(got.body).toEqual(r.body);
  });

  test('{} is valid: 200, nothing changes, version stays', async () => {
    const a = await newAgent();
    const before = await stored(a.id);
    const r = await patch(a.id, {});
    expect(r.status).toBe(200);
    expect(r.body.version).toBe(0);
    expect(await stored(a.id)).toBe(before);
  });

  test('backend-owned __ metadata keys survive a replace; clients cannot send them', async () => {
    const a = await newAgent({ metadata: { keep: 1 } });
    await p.db.read((q) => q.update(p.db.t.agents).set({ metadata: { keep: 1, __backend: 'x' } }));
    const r = await patch(a.id, { metadata: { fresh: 2 } });
    expect(r.body.metadata).toEqual({ fresh: 2, __backend: 'x' });
    const bad = await patch(a.id, { metadata: { __mine: 1 } });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ code: 'RESERVED_METADATA_KEY', errors: [{ pointer: '/metadata/__mine' }] });
  });

  test('supplied package.metadata is ignored, not stored', async () => {
    const a = await newAgent();
    const plugin = { id: 'p1', name: 'Pkg', kind: 'package', package: { externalId: 'ext', metadata: { license: 'MIT' } } };
    const r = await patch(a.id, { config: { plugins: [plugin] } });
    expect(r.status).toBe(200);
    expect((r.body.config as { plugins: { package: Record<string, unknown> }[] }).plugins[0]!.package).toEqual({ externalId: 'ext' });
  });
});

describe('bad input changes nothing', () => {
  const bad: [string, unknown, number][] = [
    ['schema violation', { config: { maxTicks: 0 } }, 422],
    ['unknown property', { nope: 1 }, 422],
    ['array body', [], 422],
    ['null body', null, 422],
    ['wrong version', { name: 'x', version: 99 }, 409],
    ['metadata too large', { metadata: { big: 'x'.repeat(17 * 1024) } }, 422],
    ['too many metadata keys', { metadata: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i])) }, 422],
    ['unknown owner', { ownerId: '6f1c1d0e-1111-4111-8111-111111111111' }, 422],
  ];
  test.each(bad)('%s → %d and the stored agent is byte-for-byte unchanged', async (_name, body, status) => {
    const a = await newAgent({ metadata: { m: 1 }, config: { model: 'scripted' } });
    const before = await stored(a.id);
    const r = await patch(a.id, body);
    expect(r.status).toBe(status);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    expect(await stored(a.id)).toBe(before);
  });

  test('more than 100 violations: the first 100 are listed, then a note at the root that more were left out', async () => {
    const a = await newAgent();
    const plugin = { id: '', name: '', componentId: '', timeoutMs: 1, resultMaxBytes: 1 };
    const many = await patch(a.id, { config: { plugins: Array.from({ length: 30 }, () => plugin) } });
    expect(many.status).toBe(422);
    const errors = (many.body as { errors: { pointer: string; message: string }[] }).errors;
    expect(errors).toHaveLength(101);
    expect(errors[0]!.pointer).toStartWith('/config/plugins/0/');
    expect(errors[100]).toEqual({ pointer: '', message: 'More violations were found; only the first 100 are listed' });
    // Exactly the limit: no note.
    const few = await patch(a.id, { nope: 1, ...Object.fromEntries(Array.from({ length: 99 }, (_, i) => [`x${i}`, 1])) });
    expect((few.body as { errors: unknown[] }).errors).toHaveLength(100);
    expect((few.body as { errors: { message: string }[] }).errors.every((e) => e.message === 'Unknown property')).toBe(true);
  });

  test('malformed JSON → 400, not JSON → 415, no body → 400; nothing changes', async () => {
    const a = await newAgent();
    const before = await stored(a.id);
    const malformed = await p.call('PATCH', `/api/v1/agents/${a.id}`, { key: keys.owner, raw: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { code: string }).code).toBe('MALFORMED_JSON');
    const form = await p.call('PATCH', `/api/v1/agents/${a.id}`, { key: keys.owner, raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    expect((await p.call('PATCH', `/api/v1/agents/${a.id}`, { key: keys.owner })).status).toBe(400);
    expect(await stored(a.id)).toBe(before);
  });
});

describe('optimistic locking', () => {
  test('version mismatch → 409 VERSION_CONFLICT with currentVersion', async () => {
    const a = await newAgent();
    await patch(a.id, { name: 'one' });
    const r = await patch(a.id, { name: 'two', version: 0 });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ type: 'about:blank', title: 'Version conflict', status: 409, code: 'VERSION_CONFLICT', currentVersion: 1 });
  });

  test('If-Match: matching ETag passes, a stale one → 412', async () => {
    const a = await newAgent();
    expect((await patch(a.id, { name: 'x' }, keys.owner, { 'if-match': '"0"' })).status).toBe(200);
    const stale = await patch(a.id, { name: 'y' }, keys.owner, { 'if-match': '"0"' });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ code: 'PRECONDITION_FAILED', currentVersion: 1 });
  });

  test('If-Match with the bare version (unquoted) is read as its entity tag; a weak tag never matches', async () => {
    const a = await newAgent();
    expect((await patch(a.id, { name: 'x' }, keys.owner, { 'if-match': '0' })).status).toBe(200);
    const stale = await patch(a.id, { name: 'y' }, keys.owner, { 'if-match': '0' });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ code: 'PRECONDITION_FAILED', currentVersion: 1 });
    expect((await patch(a.id, { name: 'z' }, keys.owner, { 'if-match': 'W/"1"' })).status).toBe(412);
    expect((await patch(a.id, { name: 'z' }, keys.owner, { 'if-match': '"7", 1' })).status).toBe(200);
    const stored = await p.json<{ version: number; name: string }>('GET', `/api/v1/agents/${a.id}`, { key: keys.owner });
    expect(stored.body).toMatchObject({ version: 2, name: 'z' });
  });

  test('DELETE with If-Match deletes only that version: a stale one → 412 and the agent stays', async () => {
    const a = await newAgent();
    await patch(a.id, { name: 'v1' });
    const stale = await p.json<Record<string, unknown>>('DELETE', `/api/v1/agents/${a.id}`, { key: keys.owner, headers: { 'if-match': '"0"' } });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ code: 'PRECONDITION_FAILED', currentVersion: 1 });
    expect((await p.json('GET', `/api/v1/agents/${a.id}`, { key: keys.owner })).status).toBe(200);
    expect((await p.json('DELETE', `/api/v1/agents/${a.id}`, { key: keys.owner, headers: { 'if-match': '"1"' } })).status).toBe(204);
    expect((await p.json('GET', `/api/v1/agents/${a.id}`, { key: keys.owner })).status).toBe(404);
  });

  test('20 parallel PATCHes with one version: exactly one 200, the rest 409, final version +1', async () => {
    const a = await newAgent();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => patch(a.id, { name: `n${i}`, version: 0 })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const final = await p.json<{ version: number; name: string }>('GET', `/api/v1/agents/${a.id}`, { key: keys.owner });
    expect(final.body.version).toBe(1);
    expect(results.find((r) => r.status === 200)!.body.name).toBe(final.body.name);
  });

  test('parallel unversioned PATCHes all apply, one after another', async () => {
    const a = await newAgent();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => patch(a.id, { desc: `d${i}` })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const final = await p.json<{ version: number }>('GET', `/api/v1/agents/${a.id}`, { key: keys.owner });
    expect(final.body.version).toBe(10);
  });
});

describe('lifecycle', () => {
  test('a DISABLED agent accepts only a move to ACTIVE or PAUSED', async () => {
    const a = await newAgent();
    expect((await patch(a.id, { status: 'DISABLED' })).body.status).toBe('DISABLED');
    for (const body of [{ name: 'x' }, { status: 'DISABLED' }, {}]) {
      const r = await patch(a.id, body);
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('AGENT_DISABLED');
    }
    const back = await patch(a.id, { status: 'PAUSED', name: 'woken' });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ status: 'PAUSED', name: 'woken' });
    expect((await patch(a.id, { status: 'ACTIVE' })).body.status).toBe('ACTIVE');
  });
});

describe('ownership, roles and workspaces', () => {
  test('another workspace → 404; AGENT_USER or no role in the workspace → 403', async () => {
    const a = await newAgent();
    expect((await patch(a.id, { name: 'x' }, keys.outsider)).status).toBe(404);
    expect((await patch(a.id, { name: 'x' }, keys.agentuser)).status).toBe(403);
    expect((await patch(a.id, { name: 'x' }, keys.plain)).status).toBe(403);
    expect((await patch(crypto.randomUUID(), { name: 'x' })).status).toBe(404);
  });

  test('the owner may update without an agent role; so may a member of the owning group', async () => {
    const a = await newAgent({ ownerId: ids.plain, ownerType: 'USER' });
    expect((await patch(a.id, { name: 'mine' }, keys.plain)).status).toBe(200);
    const g = await p.json<{ id: string }>('POST', '/api/v1/groups', { body: { name: 'team', memberIds: [ids.agentuser!] } });
    expect((await patch(a.id, { ownerId: g.body.id, ownerType: 'GROUP' }, keys.plain)).status).toBe(200);
    expect((await patch(a.id, { name: 'by group member' }, keys.agentuser)).status).toBe(200);
    expect((await patch(a.id, { name: 'no longer owner' }, keys.plain)).status).toBe(403);
  });

  test('serviceAccountUserId must name an active service account with platform access', async () => {
    const a = await newAgent();
    const sa = await p.json<{ id: string }>('POST', '/api/v1/service-accounts', { body: { name: 'exec', roles: [], platformAccess: true } });
    const noAccess = await p.json<{ id: string }>('POST', '/api/v1/service-accounts', { body: { name: 'exec2', roles: [], platformAccess: false } });
    expect((await patch(a.id, { serviceAccountUserId: sa.body.id })).body.serviceAccountUserId).toBe(sa.body.id);
    const r = await patch(a.id, { serviceAccountUserId: noAccess.body.id });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ errors: [{ pointer: '/serviceAccountUserId' }] });
    expect((await patch(a.id, { serviceAccountUserId: ids.owner })).status).toBe(422);
  });

  test('choosing a service account is acting as it: an AGENT_ADMIN or owner may choose only one whose roles and workspaces they hold', async () => {
    const admin = await p.json<{ id: string }>('POST', '/api/v1/service-accounts', { body: { name: 'root-exec', roles: ['INSTANCE_ADMIN'], platformAccess: true } });
    const peer = await p.json<{ id: string }>('POST', '/api/v1/service-accounts', { body: { name: 'peer-exec', roles: ['AGENT_ADMIN', 'ENDPOINT_INVOKE'], platformAccess: true } });
    const home = (await p.json<{ workspaceIds: string[] }>('GET', '/api/v1/me', { key: keys.owner })).body.workspaceIds[0]!;
    const wide = await p.json<{ id: string }>('POST', '/api/v1/service-accounts', { body: { name: 'wide-exec', roles: [], platformAccess: true, workspaceIds: [home, otherWorkspace] } });
    const a = await newAgent();
    const before = await stored(a.id);
    const refused = await patch(a.id, { name: 'escalated', serviceAccountUserId: admin.body.id });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'FORBIDDEN', errors: [{ pointer: '/serviceAccountUserId', message: expect.stringContaining('missing: INSTANCE_ADMIN') }] });
    expect(await stored(a.id)).toBe(before);
    expect((await patch(a.id, { serviceAccountUserId: wide.body.id })).status).toBe(403);
    // The owner without any role may not either; at creation the same holds.
    const owned = await newAgent({ ownerId: ids.plain, ownerType: 'USER' });
    expect((await patch(owned.id, { serviceAccountUserId: admin.body.id }, keys.plain)).status).toBe(403);
    expect((await p.json('POST', '/api/v1/agents', { key: keys.owner, body: { name: 'B', serviceAccountUserId: admin.body.id } })).status).toBe(403);
    // Roles the chooser holds (ENDPOINT_INVOKE aside) are fine; INSTANCE_ADMIN may choose any.
    expect((await patch(a.id, { serviceAccountUserId: peer.body.id })).status).toBe(200);
    const chosen = await patch(a.id, { serviceAccountUserId: admin.body.id }, ADMIN_KEY);
    expect(chosen.status).toBe(200);
    // Other edits keep the account an administrator chose, re-sent or not.
    expect((await patch(a.id, { name: 'renamed' })).status).toBe(200);
    expect((await patch(a.id, { name: 'again', serviceAccountUserId: admin.body.id })).status).toBe(200);
    expect(JSON.parse((await stored(a.id))!).name).toBe('again');
  });

  test('string bounds count characters (code points), not UTF-16 units', async () => {
    const a = await newAgent();
    const emoji = '\u{1F600}'; // one character, two UTF-16 units
    const ok = await patch(a.id, { config: { definition: { identity: emoji.repeat(500) } } });
    expect(ok.status).toBe(200);
    expect((ok.body.config as { definition: { identity: string } }).definition.identity).toBe(emoji.repeat(500));
    const long = await patch(a.id, { config: { definition: { identity: emoji.repeat(501) } } });
    expect(long.status).toBe(422);
    expect(long.body).toMatchObject({ errors: [{ pointer: '/config/definition/identity' }] });
    expect((await patch(a.id, { config: { definition: { identity: 'x'.repeat(501) } } })).status).toBe(422);
  });

  test('schema violations and unusable references are reported together, nothing stored', async () => {
    const a = await newAgent();
    const before = await stored(a.id);
    const r = await patch(a.id, { name: '', ownerId: crypto.randomUUID(), ownerType: 'USER', serviceAccountUserId: crypto.randomUUID(), config: { maxTicks: 0 } });
    expect(r.status).toBe(422);
    expect((r.body.errors as { pointer: string }[]).map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/config/maxTicks', '/name', '/ownerId', '/serviceAccountUserId']);
    // A reference the schema refused already is reported once, by the schema.
    const malformed = await patch(a.id, { name: '', ownerId: 'not-a-uuid' });
    expect((malformed.body.errors as { pointer: string }[]).map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/name', '/ownerId']);
    expect(await stored(a.id)).toBe(before);
  });

  test('an owner must be usable: a disabled user or an inactive service account is 422 at /ownerId', async () => {
    const a = await newAgent();
    const user = await p.json<{ id: string }>('POST', '/api/v1/users', { body: { name: 'gone', email: 'gone@example.com', roles: [], platformAccess: true } });
    await p.json('PATCH', `/api/v1/users/${user.body.id}`, { body: { status: 'DISABLED' } });
    const sa = await p.json<{ id: string }>('POST', '/api/v1/service-accounts', { body: { name: 'idle', roles: [], platformAccess: true } });
    await p.json('PATCH', `/api/v1/service-accounts/${sa.body.id}`, { body: { active: false } });
    for (const [ownerId, ownerType] of [[user.body.id, 'USER'], [sa.body.id, 'SERVICE_ACCOUNT']]) {
      const r = await patch(a.id, { ownerId, ownerType });
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ errors: [{ pointer: '/ownerId' }] });
    }
    expect((await patch(a.id, { ownerId: ids.plain, ownerType: 'USER' })).status).toBe(200);
  });

  test('an owner or execution account from another workspace is not usable: 422 at its pointer, nothing stored', async () => {
    const a = await newAgent();
    const before = await stored(a.id);
    const sa = await p.json<{ id: string }>('POST', '/api/v1/service-accounts', { body: { name: 'far', roles: [], platformAccess: true, workspaceIds: [otherWorkspace] } });
    for (const [body, pointer] of [
      [{ ownerId: ids.outsider, ownerType: 'USER' }, '/ownerId'],
      [{ serviceAccountUserId: sa.body.id }, '/serviceAccountUserId'],
    ] as const) {
      const r = await patch(a.id, body);
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ errors: [{ pointer }] });
    }
    const created = await p.json('POST', '/api/v1/agents', { key: keys.owner, body: { name: 'B', ownerId: ids.outsider, ownerType: 'USER' } });
    expect(created.status).toBe(422);
    expect(await stored(a.id)).toBe(before);
    // The same owner in the agent's workspace is fine.
    expect((await patch(a.id, { ownerId: ids.agentuser, ownerType: 'USER' })).status).toBe(200);
  });
});
});

describe('NUL characters', () => {
  for (const database of databaseCases()) {
    test(`on ${database.name}: a NUL anywhere in a body → 422 with its pointer, nothing stored`, async () => {
      const q = await startTestPlatform(database.env, { postgresSchema: database.postgresSchema ? `${database.postgresSchema}_nul` : undefined });
      try {
        const a = await q.json<{ id: string }>('POST', '/api/v1/agents', { body: { name: 'x' } });
        for (const [body, pointer] of [[{ name: 'a\u0000b' }, '/name'], [{ metadata: { k: ['ok', 'v\u0000'] } }, '/metadata/k/1'], [{ metadata: { 'k\u0000': 1 } }, '/metadata/k\u0000']] as const) {
          const r = await q.json<Record<string, any>>('PATCH', `/api/v1/agents/${a.body.id}`, { body });
          expect(r.status).toBe(422);
          expect(r.body.errors[0].pointer).toBe(pointer);
        }
        expect((await q.json<{ version: number }>('GET', `/api/v1/agents/${a.body.id}`)).body.version).toBe(0);
        expect((await q.json('POST', '/api/v1/workspaces', { body: { name: 'w\u0000' } })).status).toBe(422);
      } finally {
        await q.close();
        await dropPostgresSchema(database.postgresSchema ? `${database.postgresSchema}_nul` : undefined);
      }
    });
  }
});
