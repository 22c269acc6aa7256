// Every control-plane change is an audit row (issue #24 point 4, DESIGN §2): agents, accounts, keys,
// workspaces, groups, agent memory, beside components, Endpoints and settings. Each row names the
// actor, the action, the target and the time, with versions where the resource has them; a refused
// change writes none, and no row carries a key or a value the caller may have meant to keep.
import { describe, expect, test } from 'bun:test';
import { platformFor, ADMIN_KEY, type TestPlatform } from '../helpers/platform.ts';
import { databaseCases } from '../helpers/databases.ts';
import { hashApiKey } from '../../src/core/identity/api-keys.ts';

type Row = Record<string, unknown> & { action: string; actorId: string; resourceType: string; resourceId: string | null; workspaceId: string | null; beforeVersion: number | null; afterVersion: number | null; at: string; oid: string | null; details: Record<string, any> | null };
type Page = { data: Row[]; meta: { count?: number } };
const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

for (const database of databaseCases()) describe(`on ${database.name}`, () => {
  let p: TestPlatform;
  let adminId: string;
  let defaultWorkspace: string;
  const ann = { id: '', key: '' }; // AGENT_ADMIN
  const cyd = { id: '', key: '' }; // COMPONENT_ADMIN
  const eve = { id: '', key: '' }; // ENDPOINT_ADMIN: reads the audit of her workspace

  platformFor(database, async (started) => {
    p = started;
    const me = (await p.json<{ id: string; workspaceIds: string[] }>('GET', '/api/v1/me')).body;
    adminId = me.id;
    defaultWorkspace = me.workspaceIds[0]!;
    for (const [who, name, role] of [[ann, 'ann', 'AGENT_ADMIN'], [cyd, 'cyd', 'COMPONENT_ADMIN'], [eve, 'eve', 'ENDPOINT_ADMIN']] as const) {
      who.id = (await p.json<{ id: string }>('POST', '/api/v1/users', { body: { name, email: `${name}@example.com`, roles: [role], platformAccess: true } })).body.id;
      who.key = (await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: who.id, name } })).body.key;
    }
  });

  /** The change rows of one resource, oldest first. */
  const rowsOf = async (resourceId: string) => {
    const r = await p.json<Page>('GET', `/api/v1/audit?filter=${q({ field: 'resourceId', op: 'eq', value: resourceId })}&sort=at`);
    expect(r.status).toBe(200);
    return r.body.data;
  };
  /** How many change rows there are: a refused request must leave it where it was. */
  const changeCount = async () => (await p.json<Page>('GET', `/api/v1/audit?filter=${q({ field: 'kind', op: 'eq', value: 'change' })}&count=true&limit=0`)).body.meta.count;
  /** Sends a request that must be refused with `status`, and checks it wrote no audit row. */
  const refused = async (status: number, method: string, path: string, options: { body?: unknown; key?: string; headers?: Record<string, string> } = {}) => {
    const before = await changeCount();
    const r = await p.json(method, `/api/v1${path}`, options);
    expect({ method, path, status: r.status }).toEqual({ method, path, status });
    expect(await changeCount()).toBe(before);
  };
  /** A change row: kind, actor, target, versions, the request's oid, a time within the request. */
  const expectRow = (row: Row | undefined, expected: Partial<Row>, response: { headers: Headers }, window: [number, number]) => {
    expect(row).toMatchObject({ kind: 'change', executionAccountId: null, oid: response.headers.get('x-svc-oid'), ...expected });
    const at = Date.parse(row!.at);
    expect(at).toBeGreaterThanOrEqual(window[0] - 1);
    expect(at).toBeLessThanOrEqual(window[1] + 1);
  };
  const timed = async <T,>(send: () => Promise<T>): Promise<[T, [number, number]]> => {
    const start = Date.now();
    const result = await send();
    return [result, [start, Date.now()]];
  };

  describe('users and service accounts', () => {
    test('create and update: one row each, with the fields that changed before and after', async () => {
      const [created, w1] = await timed(() => p.json<{ id: string }>('POST', '/api/v1/users', { body: { name: 'uma', email: 'uma@example.com', roles: ['AGENT_USER'], platformAccess: true } }));
      expect(created.status).toBe(201);
      const [updated, w2] = await timed(() => p.json('PATCH', `/api/v1/users/${created.body.id}`, { body: { status: 'DISABLED', roles: ['AGENT_USER', 'ENDPOINT_INVOKE'], name: 'uma' } }));
      expect(updated.status).toBe(200);
      // The same values again change nothing, and say so by writing nothing.
      expect((await p.json('PATCH', `/api/v1/users/${created.body.id}`, { body: { status: 'DISABLED' } })).status).toBe(200);
      const rows = await rowsOf(created.body.id);
      expect(rows).toHaveLength(2);
      expectRow(rows[0], { action: 'user.create', actorId: adminId, resourceType: 'user', resourceId: created.body.id, workspaceId: null, beforeVersion: null, afterVersion: null }, created, w1);
      expect(rows[0]!.details).toEqual({ kind: 'USER', name: 'uma', email: 'uma@example.com', roles: ['AGENT_USER'], platformAccess: true, status: 'ACTIVE', workspaceIds: [defaultWorkspace] });
      expectRow(rows[1], { action: 'user.update', actorId: adminId, resourceType: 'user', resourceId: created.body.id }, updated, w2);
      expect(rows[1]!.details).toEqual({
        changed: ['roles', 'status'],
        before: { roles: ['AGENT_USER'], status: 'ACTIVE' },
        after: { roles: ['AGENT_USER', 'ENDPOINT_INVOKE'], status: 'DISABLED' },
      });

      const [account, w3] = await timed(() => p.json<{ id: string }>('POST', '/api/v1/service-accounts', { body: { name: 'robot', roles: ['ENDPOINT_INVOKE'], platformAccess: true } }));
      const [deactivated, w4] = await timed(() => p.json('PATCH', `/api/v1/service-accounts/${account.body.id}`, { body: { active: false } }));
      const accountRows = await rowsOf(account.body.id);
      expect(accountRows.map((r) => r.action)).toEqual(['service-account.create', 'service-account.update']);
      expectRow(accountRows[0], { actorId: adminId, resourceType: 'service-account', resourceId: account.body.id, workspaceId: null }, account, w3);
      expect(accountRows[0]!.details).toMatchObject({ kind: 'SERVICE_ACCOUNT', active: true });
      expectRow(accountRows[1], { actorId: adminId, resourceType: 'service-account' }, deactivated, w4);
      expect(accountRows[1]!.details).toEqual({ changed: ['active'], before: { active: true }, after: { active: false } });
    });

    test('refused changes write nothing: 409 taken email, 422 bad body or workspace, 403 not an admin, 404 unknown', async () => {
      await refused(409, 'POST', '/users', { body: { name: 'dup', email: 'ann@example.com', roles: [], platformAccess: true } });
      await refused(422, 'POST', '/users', { body: { name: '', email: 'x', roles: ['KING'], platformAccess: 'yes' } });
      await refused(422, 'POST', '/service-accounts', { body: { name: 'sa', roles: [], platformAccess: true, workspaceIds: [crypto.randomUUID()] } });
      await refused(422, 'PATCH', `/users/${ann.id}`, { body: { workspaceIds: [crypto.randomUUID()] } });
      await refused(403, 'POST', '/users', { key: ann.key, body: { name: 'x', email: 'x@example.com', roles: ['INSTANCE_ADMIN'], platformAccess: true } });
      await refused(403, 'PATCH', `/users/${ann.id}`, { key: ann.key, body: { roles: ['INSTANCE_ADMIN'] } });
      await refused(404, 'PATCH', `/service-accounts/${ann.id}`, { body: { active: false } });
    });
  });

  describe('API keys', () => {
    test('create (by an admin for another principal, or by oneself) and revoke: rows without the key or its digest', async () => {
      const [forAnn, w1] = await timed(() => p.json<{ id: string; key: string }>('POST', '/api/v1/api-keys', { body: { principalId: ann.id, name: 'ann-ci', expiresAt: '2099-01-01T00:00:00Z' } }));
      const [own, w2] = await timed(() => p.json<{ id: string; key: string }>('POST', '/api/v1/api-keys', { key: ann.key, body: { name: 'ann-own' } }));
      const [revoke, w3] = await timed(() => p.call('DELETE', `/api/v1/api-keys/${own.body.id}`, { key: ann.key }));
      expect(revoke.status).toBe(204);
      // Revoking it again changes nothing: 204, no row.
      await refused(204, 'DELETE', `/api-keys/${own.body.id}`, { key: ann.key });

      const adminRows = await rowsOf(forAnn.body.id);
      expect(adminRows).toHaveLength(1);
      expectRow(adminRows[0], { action: 'api-key.create', actorId: adminId, resourceType: 'api-key', resourceId: forAnn.body.id, workspaceId: null, beforeVersion: null, afterVersion: null }, forAnn, w1);
      expect(adminRows[0]!.details).toEqual({ principalId: ann.id, name: 'ann-ci', expiresAt: '2099-01-01T00:00:00.000Z' });
      const ownRows = await rowsOf(own.body.id);
      expect(ownRows.map((r) => [r.action, r.actorId])).toEqual([['api-key.create', ann.id], ['api-key.revoke', ann.id]]);
      expectRow(ownRows[0], { resourceType: 'api-key' }, own, w2);
      expectRow(ownRows[1], { resourceType: 'api-key', details: { principalId: ann.id, name: 'ann-own', expiresAt: null } }, revoke, w3);

      const all = JSON.stringify((await p.json<Page>('GET', `/api/v1/audit?filter=${q({ field: 'resourceType', op: 'eq', value: 'api-key' })}&limit=1000`)).body);
      for (const key of [forAnn.body.key, own.body.key, ann.key, ADMIN_KEY]) {
        expect(all).not.toContain(key);
        expect(all).not.toContain(hashApiKey(key));
      }
      expect(all).not.toMatch(/"(key|keyHash)"/);
    });

    test('refused key changes write nothing', async () => {
      await refused(403, 'POST', '/api-keys', { key: ann.key, body: { principalId: cyd.id, name: 'not mine' } });
      await refused(422, 'POST', '/api-keys', { body: { name: 'late', expiresAt: '2001-01-01T00:00:00Z' } });
      await refused(422, 'POST', '/api-keys', { body: { principalId: crypto.randomUUID(), name: 'nobody' } });
      const admins = (await p.json<{ data: { id: string }[] }>('GET', '/api/v1/api-keys')).body.data;
      await refused(404, 'DELETE', `/api-keys/${admins[0]!.id}`, { key: ann.key });
    });
  });

  describe('workspaces and groups', () => {
    test('create: one row each; a taken name or an unknown member writes nothing', async () => {
      const [ws, w1] = await timed(() => p.json<{ id: string }>('POST', '/api/v1/workspaces', { body: { name: 'audited-ws' } }));
      const [group, w2] = await timed(() => p.json<{ id: string }>('POST', '/api/v1/groups', { body: { name: 'crew', memberIds: [ann.id, cyd.id] } }));
      const wsRows = await rowsOf(ws.body.id);
      expect(wsRows).toHaveLength(1);
      expectRow(wsRows[0], { action: 'workspace.create', actorId: adminId, resourceType: 'workspace', resourceId: ws.body.id, workspaceId: ws.body.id, details: { name: 'audited-ws' } }, ws, w1);
      const groupRows = await rowsOf(group.body.id);
      expect(groupRows).toHaveLength(1);
      expectRow(groupRows[0], { action: 'group.create', actorId: adminId, resourceType: 'group', resourceId: group.body.id, workspaceId: null, details: { name: 'crew', memberIds: [ann.id, cyd.id] } }, group, w2);

      await refused(409, 'POST', '/workspaces', { body: { name: 'audited-ws' } });
      await refused(422, 'POST', '/groups', { body: { name: 'ghosts', memberIds: [crypto.randomUUID()] } });
      await refused(403, 'POST', '/groups', { key: ann.key, body: { name: 'mine', memberIds: [] } });
      await refused(403, 'POST', '/workspaces', { key: ann.key, body: { name: 'mine' } });
    });
  });

  describe('agents', () => {
    test('create, update (a status move among them) and delete: rows with versions; config, policy and metadata only named', async () => {
      const [created, w1] = await timed(() => p.json<{ id: string; workspaceId: string }>('POST', '/api/v1/agents', { key: ann.key, body: { name: 'bot', config: { model: 'scripted' } } }));
      expect(created.status).toBe(201);
      const id = created.body.id;
      const [paused, w2] = await timed(() => p.json('PATCH', `/api/v1/agents/${id}`, { key: ann.key, body: { version: 0, status: 'PAUSED', metadata: { token: 'kept-out-of-the-audit' } } }));
      expect(paused.status).toBe(200);
      const [renamed, w3] = await timed(() => p.json('PATCH', `/api/v1/agents/${id}`, { body: { name: 'bot 2', config: { model: 'scripted', systemInstructions: 'also kept out' } } }));
      expect(renamed.status).toBe(200);
      // `{}` changes nothing: no version, no row.
      expect((await p.json('PATCH', `/api/v1/agents/${id}`, { key: ann.key, body: {} })).status).toBe(200);

      await refused(409, 'PATCH', `/agents/${id}`, { key: ann.key, body: { version: 0, name: 'late' } });
      await refused(412, 'PATCH', `/agents/${id}`, { key: ann.key, body: { name: 'late' }, headers: { 'if-match': '"0"' } });
      await refused(422, 'PATCH', `/agents/${id}`, { key: ann.key, body: { config: { maxTicks: 0 } } });
      await refused(403, 'PATCH', `/agents/${id}`, { key: cyd.key, body: { name: 'not yours' } });
      await refused(403, 'POST', '/agents', { key: cyd.key, body: { name: 'no role' } });
      await refused(412, 'DELETE', `/agents/${id}`, { key: ann.key, headers: { 'if-match': '"1"' } });

      const [deleted, w4] = await timed(() => p.call('DELETE', `/api/v1/agents/${id}`, { key: ann.key, headers: { 'if-match': '"2"' } }));
      expect(deleted.status).toBe(204);
      await refused(404, 'DELETE', `/agents/${id}`, { key: ann.key });

      const rows = await rowsOf(id);
      expect(rows.map((r) => [r.action, r.actorId, r.beforeVersion, r.afterVersion])).toEqual([
        ['agent.create', ann.id, null, 0],
        ['agent.update', ann.id, 0, 1],
        ['agent.update', adminId, 1, 2],
        ['agent.delete', ann.id, 2, null],
      ]);
      for (const row of rows) expect(row).toMatchObject({ resourceType: 'agent', resourceId: id, workspaceId: created.body.workspaceId });
      expectRow(rows[0], { details: { name: 'bot', status: 'ACTIVE', ownerId: ann.id, ownerType: 'USER', serviceAccountUserId: null } }, created, w1);
      expectRow(rows[1], { details: { changed: ['status', 'metadata'], before: { status: 'ACTIVE' }, after: { status: 'PAUSED' } } }, paused, w2);
      expectRow(rows[2], { details: { changed: ['name', 'config'], before: { name: 'bot' }, after: { name: 'bot 2' } } }, renamed, w3);
      expectRow(rows[3], { details: { name: 'bot 2' } }, deleted, w4);
      expect(JSON.stringify(rows)).not.toMatch(/kept-out-of-the-audit|also kept out/);
    });

    test('deleting a memory record is audited; an unknown one writes nothing', async () => {
      const agent = (await p.json<{ id: string; workspaceId: string }>('POST', '/api/v1/agents', { key: ann.key, body: { name: 'rememberer', config: { model: 'scripted' } } })).body;
      const memoryId = crypto.randomUUID();
      await p.db.write((tx) => tx.insert(p.db.t.agentMemory).values({ id: memoryId, agentId: agent.id, runId: crypto.randomUUID(), summary: 'the customer prefers email', createdAt: new Date() }));
      await refused(404, 'DELETE', `/agents/${agent.id}/memory/${crypto.randomUUID()}`, { key: ann.key });
      await refused(403, 'DELETE', `/agents/${agent.id}/memory/${memoryId}`, { key: eve.key });
      const [forgotten, window] = await timed(() => p.call('DELETE', `/api/v1/agents/${agent.id}/memory/${memoryId}`, { key: ann.key }));
      expect(forgotten.status).toBe(204);
      const rows = await rowsOf(memoryId);
      expect(rows).toHaveLength(1);
      expectRow(rows[0], { action: 'agent-memory.delete', actorId: ann.id, resourceType: 'agent-memory', resourceId: memoryId, workspaceId: agent.workspaceId, details: { agentId: agent.id } }, forgotten, window);
      expect(JSON.stringify(rows)).not.toContain('prefers email');
    });
  });

  describe('Endpoint settings and Endpoints (audited before)', () => {
    test('settings put and delete, and an Endpoint\'s create, are rows as before', async () => {
      const filter = q({ field: 'resourceType', op: 'eq', value: 'endpoint-settings' });
      const before = (await p.json<Page>('GET', `/api/v1/audit?filter=${filter}&count=true`)).body.meta.count!;
      expect((await p.json('PUT', '/api/v1/endpoints/settings', { body: { executionPolicy: { mode: 'CALLER' } } })).status).toBe(200);
      expect((await p.call('DELETE', '/api/v1/endpoints/settings')).status).toBe(204);
      const rows = (await p.json<Page>('GET', `/api/v1/audit?filter=${filter}&sort=-at&limit=2`)).body.data;
      expect(rows.map((r) => [r.action, r.actorId])).toEqual([['endpoint-settings.delete', adminId], ['endpoint-settings.put', adminId]]);
      expect((await p.json<Page>('GET', `/api/v1/audit?filter=${filter}&count=true`)).body.meta.count).toBe(before + 2);
      await refused(422, 'PUT', '/endpoints/settings', { body: { executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: crypto.randomUUID() } } });

      const endpoint = await p.json<{ id: string }>('POST', '/api/v1/endpoints', { body: { name: 'e', method: 'GET', path: '/audited-here', staticResponse: { status: 200 } } });
      expect((await rowsOf(endpoint.body.id)).map((r) => [r.action, r.resourceType, r.afterVersion])).toEqual([['endpoint.create', 'endpoint', 0]]);
    });
  });

  test('GET /audit filters by resourceType; account rows are instance-wide, for INSTANCE_ADMIN only', async () => {
    const types = ['user', 'service-account', 'api-key', 'workspace', 'group', 'agent', 'agent-memory'];
    for (const type of types) {
      const r = await p.json<Page>('GET', `/api/v1/audit?filter=${q({ field: 'resourceType', op: 'eq', value: type })}&count=true`);
      expect({ type, status: r.status }).toEqual({ type, status: 200 });
      expect(r.body.meta.count).toBeGreaterThan(0);
      expect(new Set(r.body.data.map((row) => row.resourceType))).toEqual(new Set([type]));
    }
    const grouped = await p.json<{ data: { resourceType: string; n: number }[] }>('GET', `/api/v1/audit?filter=${q({ field: 'kind', op: 'eq', value: 'change' })}&groupBy=resourceType&fields=${q(['resourceType', { fn: 'count', args: ['*'], as: 'n' }])}`);
    expect(grouped.body.data.map((g) => g.resourceType)).toEqual(expect.arrayContaining(types));

    // An ENDPOINT_ADMIN reads its workspace's rows (agents there among them), never account rows.
    const accountRows = q({ field: 'resourceType', op: 'in', value: ['user', 'service-account', 'api-key', 'group'] });
    expect((await p.json<Page>('GET', `/api/v1/audit?filter=${accountRows}&count=true`, { key: eve.key })).body.meta.count).toBe(0);
    expect((await p.json<Page>('GET', `/api/v1/audit?filter=${q({ field: 'resourceType', op: 'eq', value: 'agent' })}&count=true`, { key: eve.key })).body.meta.count).toBeGreaterThan(0);
  });
});
