// GET /users, /service-accounts and /groups (issue #24 point 4): the list engine over accounts,
// INSTANCE_ADMIN only, each record as its GET-one (or POST /groups) answers it, never a secret.
import { describe, expect, test } from 'bun:test';
import { platformFor, ADMIN_KEY, type TestPlatform } from '../helpers/platform.ts';
import { databaseCases } from '../helpers/databases.ts';
import { hashApiKey } from '../../src/core/identity/api-keys.ts';
import { SYSTEM_PRINCIPAL_ID } from '../../src/core/identity/roles.ts';

type Page = { data: Record<string, unknown>[]; meta: { offset: number; limit: number; hasMore: boolean; count?: number }; debug?: { sql: string } };
const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

for (const database of databaseCases()) describe(`on ${database.name}`, () => {
  let p: TestPlatform;
  const ids: Record<string, string> = {};
  const keys: Record<string, string> = {};

  platformFor(database, async (started) => {
    p = started;
    const user = async (name: string, roles: string[]) => {
      await Bun.sleep(3); // distinct createdAt milliseconds: the default order is by creation
      const r = await p.json<{ id: string }>('POST', '/api/v1/users', { body: { name, email: `${name}@example.com`, roles, platformAccess: true } });
      ids[name] = r.body.id;
      keys[name] = (await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: r.body.id, name } })).body.key;
    };
    await user('ann', ['AGENT_ADMIN']);
    await user('bob', ['ENDPOINT_ADMIN', 'ENDPOINT_INVOKE']);
    await user('cyd', ['COMPONENT_ADMIN']);
    expect((await p.json('PATCH', `/api/v1/users/${ids.bob}`, { body: { status: 'DISABLED' } })).status).toBe(200);
    for (const [name, active] of [['sa-on', true], ['sa-off', false]] as const) {
      await Bun.sleep(3);
      const r = await p.json<{ id: string }>('POST', '/api/v1/service-accounts', { body: { name, roles: ['ENDPOINT_INVOKE'], platformAccess: true, active } });
      ids[name] = r.body.id;
    }
    keys['sa-on'] = (await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: ids['sa-on'], name: 'sa' } })).body.key;
    for (const [name, members] of [['crew', [ids.ann!, ids['sa-on']!]], ['empty', []]] as const) {
      await Bun.sleep(3);
      ids[name] = (await p.json<{ id: string }>('POST', '/api/v1/groups', { body: { name, memberIds: members } })).body.id;
    }
  });

  const list = (path: string, key: string = ADMIN_KEY) => p.json<Page>('GET', `/api/v1${path}`, { key });

  describe('GET /users', () => {
    test('every user, oldest first, each exactly as GET /users/{id} answers it; no service account, no System', async () => {
      const r = await list('/users');
      expect(r.status).toBe(200);
      expect(r.body.meta).toEqual({ offset: 0, limit: 100, hasMore: false });
      const names = r.body.data.map((u) => u.name);
      expect(names).toEqual(['admin', 'ann', 'bob', 'cyd']);
      for (const row of r.body.data) expect(row).toEqual((await p.json('GET', `/api/v1/users/${row.id}`)).body);
      expect(r.body.data.find((u) => u.name === 'bob')).toMatchObject({ kind: 'USER', email: 'bob@example.com', status: 'DISABLED', roles: ['ENDPOINT_ADMIN', 'ENDPOINT_INVOKE'], platformAccess: true });
      expect(r.body.data.map((u) => u.id)).not.toContain(SYSTEM_PRINCIPAL_ID);
    });

    test('filter, sort, fields and count on the record\'s scalar fields (status included)', async () => {
      const disabled = await list(`/users?filter=${q({ field: 'status', op: 'eq', value: 'DISABLED' })}`);
      expect(disabled.body.data.map((u) => u.name)).toEqual(['bob']);
      const active = await list('/users?filter[field]=status&filter[op]=in&filter[value][0]=ACTIVE&sort=-name&count=true');
      expect(active.body.data.map((u) => u.name)).toEqual(['cyd', 'ann', 'admin']);
      expect(active.body.meta.count).toBe(3);
      const admins = await list(`/users?filter=${q({ field: 'roles', op: 'jsonArrayHas', value: 'COMPONENT_ADMIN' })}`);
      expect(admins.body.data.map((u) => u.name)).toEqual(['cyd']);
      const picked = await list(`/users?fields=id,name,status&filter=${q({ field: 'email', op: 'endsWith', value: '@example.com' })}&sort=status,name`);
      expect(picked.body.data).toEqual([
        { id: ids.ann, name: 'ann', status: 'ACTIVE' },
        { id: ids.cyd, name: 'cyd', status: 'ACTIVE' },
        { id: ids.bob, name: 'bob', status: 'DISABLED' },
      ]);
      const paged = await list('/users?limit=2&offset=1&count=true');
      expect(paged.body.data.map((u) => u.name)).toEqual(['ann', 'bob']);
      expect(paged.body.meta).toEqual({ offset: 1, limit: 2, hasMore: true, count: 4 });
      const since = await list(`/users?filter=${q({ field: 'createdAt', op: 'gte', value: (await p.json<{ createdAt: string }>('GET', `/api/v1/users/${ids.bob}`)).body.createdAt })}&fields=name`);
      expect(since.body.data).toEqual([{ name: 'bob' }, { name: 'cyd' }]);
    });

    test('a stored column the record does not show is no field: 400 at its pointer', async () => {
      for (const [query, pointer] of [
        ['fields=active', '/query/fields/0'],
        [`filter=${q({ field: 'updatedAt', op: 'isNotNull' })}`, '/query/filter/field'],
        ['sort=keyHash', '/query/sort/0'],
        ['groupBy=status', '/query/groupBy'],
      ] as const) {
        const r = await p.json<{ code: string; errors: { pointer: string }[] }>('GET', `/api/v1/users?${query}`);
        expect({ query, status: r.status, code: r.body.code }).toEqual({ query, status: 400, code: 'INVALID_QUERY' });
        expect(r.body.errors.map((e) => e.pointer)).toContain(pointer);
      }
    });
  });

  describe('GET /service-accounts', () => {
    test('every service account as GET /service-accounts/{id} answers it; filters on active', async () => {
      const r = await list('/service-accounts?count=true');
      expect(r.status).toBe(200);
      expect(r.body.data.map((s) => s.name)).toEqual(['sa-on', 'sa-off']);
      expect(r.body.meta.count).toBe(2);
      for (const row of r.body.data) expect(row).toEqual((await p.json('GET', `/api/v1/service-accounts/${row.id}`)).body);
      expect(r.body.data[1]).toMatchObject({ kind: 'SERVICE_ACCOUNT', active: false, roles: ['ENDPOINT_INVOKE'] });
      expect(Object.keys(r.body.data[0]!)).not.toContain('email');
      const inactive = await list(`/service-accounts?filter=${q({ field: 'active', op: 'false' })}&fields=id,active`);
      expect(inactive.body.data).toEqual([{ id: ids['sa-off'], active: false }]);
      expect((await list('/service-accounts?fields=email')).status).toBe(400);
    });
  });

  describe('GET /groups', () => {
    test('every group with its members, as POST /groups answered it; filter, sort and fields', async () => {
      const r = await list('/groups');
      expect(r.status).toBe(200);
      expect(r.body.data.map((g) => g.name)).toEqual(['crew', 'empty']);
      const crew = r.body.data[0]!;
      expect(Object.keys(crew).sort()).toEqual(['createdAt', 'id', 'memberIds', 'name']);
      expect((crew.memberIds as string[]).toSorted()).toEqual([ids.ann!, ids['sa-on']!].toSorted());
      expect(r.body.data[1]).toMatchObject({ id: ids.empty, memberIds: [] });
      const named = await list(`/groups?filter=${q({ field: 'name', op: 'eq', value: 'empty' })}&count=true`);
      expect(named.body.data.map((g) => g.id)).toEqual([ids.empty]);
      expect(named.body.meta.count).toBe(1);
      expect((await list('/groups?sort=-createdAt&fields=name')).body.data).toEqual([{ name: 'empty' }, { name: 'crew' }]);
    });
  });

  test('INSTANCE_ADMIN only: 403 for other roles, 401 without a credential; debug for the admin', async () => {
    for (const path of ['/users', '/service-accounts', '/groups']) {
      for (const who of ['ann', 'cyd', 'sa-on']) {
        const r = await p.json<{ code: string }>('GET', `/api/v1${path}`, { key: keys[who] });
        expect({ path, who, status: r.status }).toEqual({ path, who, status: 403 });
      }
      expect((await p.json('GET', `/api/v1${path}`, { key: null })).status).toBe(401);
      const debug = await list(`${path}?debug=true`);
      expect(debug.status).toBe(200);
      expect(debug.body.debug?.sql).toContain(path === '/groups' ? 'FROM "groups"' : 'FROM "principals"');
    }
  });

  test('no key, key digest or other secret in any record or projection', async () => {
    const texts: string[] = [];
    for (const path of ['/users', '/service-accounts', '/groups', '/users?fields=id,kind,name,email,roles,platformAccess,status,createdAt']) {
      const r = await p.call('GET', `/api/v1${path}`);
      expect(r.status).toBe(200);
      texts.push(await r.text());
    }
    const all = texts.join('\n');
    for (const key of [ADMIN_KEY, ...Object.values(keys)]) {
      expect(all).not.toContain(key);
      expect(all).not.toContain(hashApiKey(key));
    }
    expect(all).not.toMatch(/keyHash|key_hash|"key"/);
  });
});
