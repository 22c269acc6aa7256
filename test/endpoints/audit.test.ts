// GET /api/v1/audit: changes with who/what/when/versions, through the list engine, scoped to the
// caller's workspaces (INSTANCE_ADMIN sees all).
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform();
});
afterAll(() => p.close());

test('changes are listed with actor and versions; other workspaces are invisible; roles enforced', async () => {
  const ws = await p.json<{ id: string }>('POST', '/api/v1/workspaces', { body: { name: 'audit-other' } });
  const mk = async (name: string, roles: string[], workspaceIds?: string[]) => {
    const u = await p.json<{ id: string }>('POST', '/api/v1/users', { body: { name, email: `${name}@example.com`, roles, platformAccess: true, ...(workspaceIds ? { workspaceIds } : {}) } });
    return { id: u.body.id, key: (await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: u.body.id, name } })).body.key };
  };
  const here = await mk('auditor', ['ENDPOINT_ADMIN']);
  const there = await mk('elsewhere', ['ENDPOINT_ADMIN'], [ws.body.id]);
  const agentOnly = await mk('agentonly', ['AGENT_ADMIN']);

  const e = await p.json<{ id: string }>('POST', '/api/v1/endpoints', { key: here.key, body: { name: 'a', method: 'GET', path: '/audited', staticResponse: { status: 200 } } });
  await p.json('POST', `/api/v1/endpoints/${e.body.id}/activate`, { key: here.key });
  const filter = encodeURIComponent(JSON.stringify({ field: 'resourceId', op: 'eq', value: e.body.id }));

  const mine = await p.json<{ data: Record<string, unknown>[]; meta: { count: number } }>('GET', `/api/v1/audit?filter=${filter}&sort=at&count=true`, { key: here.key });
  expect(mine.status).toBe(200);
  expect(mine.body.meta.count).toBe(2);
  expect(mine.body.data.map((r) => [r.action, r.actorId, r.beforeVersion, r.afterVersion, r.kind])).toEqual([
    ['endpoint.create', here.id, null, 0, 'change'],
    ['endpoint.activate', here.id, 0, 1, 'change'],
  ]);
  expect(Date.parse(String(mine.body.data[0]!.at))).toBeGreaterThan(0);

  expect((await p.json<{ meta: { count: number } }>('GET', `/api/v1/audit?filter=${filter}&count=true`, { key: there.key })).body.meta.count).toBe(0);
  expect((await p.json<{ meta: { count: number } }>('GET', `/api/v1/audit?filter=${filter}&count=true`)).body.meta.count).toBe(2);
  expect((await p.json('GET', '/api/v1/audit', { key: agentOnly.key })).status).toBe(403);
});

test('a workspace-scoped page is read off the time index with no sort step; seq stays hidden', async () => {
  // The shape listInWorkspaces gives a scoped caller's query, asked with debug as the admin.
  const filter = encodeURIComponent(JSON.stringify({ field: 'workspaceId', op: 'in', value: [crypto.randomUUID(), crypto.randomUUID()] }));
  const r = await p.json<{ debug: { sql: string; plan: { detail: string }[] } }>('GET', `/api/v1/audit?filter=${filter}&debug=true`);
  expect(r.status).toBe(200);
  expect(r.body.debug.sql).toContain('ORDER BY "t0"."at" DESC, "t0"."seq" DESC');
  const plan = r.body.debug.plan.map((step) => step.detail).join(' | ');
  expect(plan).toContain('USING INDEX audit_at_idx');
  expect(plan).not.toContain('TEMP B-TREE');

  const page = await p.json<{ data: Record<string, unknown>[] }>('GET', '/api/v1/audit?limit=1');
  expect(page.status).toBe(200);
  expect(Object.keys(page.body.data[0]!)).not.toContain('seq');
  expect((await p.json('GET', '/api/v1/audit?sort=seq')).status).toBe(400);
});
