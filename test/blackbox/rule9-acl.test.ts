// Black-box findings on rule 9 (README "Components", the Approval paragraph): what an approval
// compares (roles, workspaces and agent ownership) and what GET …/approval shows. Both were bugs
// found by a black-box audit; each test asserts the behaviour the README promises.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { isProblem, startServer, type Server } from './server.ts';

let s: Server;
let dev: { id: string; key: string };
let caller: { id: string; key: string };

beforeAll(async () => {
  s = await startServer();
  // No agent role at all: this user may not change any agent it does not own.
  dev = await s.user(['COMPONENT_ADMIN', 'ENDPOINT_ADMIN']);
  caller = await s.user(['ENDPOINT_INVOKE']);
});
afterAll(() => s.stop());

/** Lowcode that renames agent `agentId` (as whatever identity it runs as) and returns the status. */
const renaming = (agentId: string) => [
  { name: 'r', visible: true, code: `const a = await api.platform('GET', '/api/v1/agents/${agentId}'); const p = await api.platform('PATCH', '/api/v1/agents/${agentId}', { version: a.body.version, name: 'renamed-by-component' }); return p.status;` },
];

/** The dev's component, bound by an INSTANCE_ADMIN to `accountId` (the dev may not choose it), active. */
const boundByAdmin = async (accountId: string, agentId: string, path: string) => {
  const c = await s.api('POST', '/components', { name: `c${path}`, kind: 'lowcode', elements: renaming(agentId) }, dev.key);
  expect(c.status).toBe(201);
  const e = await s.api('POST', '/endpoints', { name: path, method: 'POST', path, componentId: c.body.id, executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: accountId } });
  expect(e.status).toBe(201);
  expect((await s.api('POST', `/endpoints/${e.body.id}/activate`)).status).toBe(200);
  return { componentId: c.body.id as string, revisionId: c.body.latestRevision.id as string };
};
const invoke = (path: string) => s.invoke('POST', path, {}, caller.key);

// Was a bug (high, privilege escalation past rule 9): an approval covered an account when the
// approver held its roles and workspaces, but ownership of agents (by the account, or a group it
// belongs to) was never compared, nor when choosing the account; so a COMPONENT_ADMIN+ENDPOINT_ADMIN
// with no agent role bound its own code to an ENDPOINT_INVOKE-only account owning an agent, and any
// invoker made that code change the agent. Ownership now counts as a right (AGENT_ADMIN in the
// agents' workspaces, which may do what an owner does): choosing such an account needs it, an
// approval covers it only from someone who holds it, and ownership changes rebuild the index.
describe('agent ownership is a right: choosing or approving code for an account that owns agents needs AGENT_ADMIN', () => {
  test('held: the dev itself cannot change the agents used below', async () => {
    const sa = await s.serviceAccount(['ENDPOINT_INVOKE']);
    const agent = await s.api('POST', '/agents', { name: 'owned-by-sa', ownerId: sa.id, ownerType: 'SERVICE_ACCOUNT' });
    const direct = await s.api('PATCH', `/agents/${agent.body.id}`, { version: 0, name: 'x' }, dev.key);
    expect(isProblem(direct, 403, 'FORBIDDEN')).toBe(true);
  });

  for (const through of ['itself', 'a group'] as const) {
    test(`an account owning an agent through ${through}: the dev may not choose it, and its code bound by an admin is refused until approved by an AGENT_ADMIN`, async () => {
      const sa = await s.serviceAccount(['ENDPOINT_INVOKE']);
      const owner = through === 'itself' ? { ownerId: sa.id, ownerType: 'SERVICE_ACCOUNT' } : { ownerId: (await s.api('POST', '/groups', { name: `g${crypto.randomUUID().slice(0, 6)}`, memberIds: [sa.id] })).body.id, ownerType: 'GROUP' };
      const agent = await s.api('POST', '/agents', { name: 'owned', ...owner });
      expect(agent.status).toBe(201);
      const path = `/owned-${through === 'itself' ? 'sa' : 'group'}`;
      // Choosing the account is acting as it.
      const chosen = await s.api('POST', '/endpoints', { name: 'x', method: 'POST', path: `${path}-dev`, executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: sa.id }, staticResponse: { status: 200, body: 1 } }, dev.key);
      expect(isProblem(chosen, 403, 'FORBIDDEN')).toBe(true);
      expect(chosen.body.errors[0].pointer).toBe('/executionPolicy/serviceAccountId');
      // Bound by an admin, the dev's code does not run as the account: its author lacks AGENT_ADMIN.
      const { componentId, revisionId } = await boundByAdmin(sa.id, agent.body.id, path);
      expect(isProblem(await invoke(path), 403, 'REVISION_NOT_APPROVED')).toBe(true);
      expect((await s.api('GET', `/agents/${agent.body.id}`)).body).toMatchObject({ name: 'owned', version: 0 });
      // Approved by someone who may do what the owner does, it runs.
      const agentAdmin = await s.user(['COMPONENT_ADMIN', 'AGENT_ADMIN']);
      expect((await s.api('POST', `/components/${componentId}/revisions/${revisionId}/approve`, undefined, agentAdmin.key)).status).toBe(200);
      const ran = await invoke(path);
      expect(ran.status).toBe(200);
      expect((await s.api('GET', `/agents/${agent.body.id}`)).body.name).toBe('renamed-by-component');
    });
  }

  test('an account that comes to own an agent after the code was approved for it runs that code no more', async () => {
    const sa = await s.serviceAccount(['ENDPOINT_INVOKE']);
    const target = await s.api('POST', '/agents', { name: 'target' });
    const path = '/owns-later';
    await boundByAdmin(sa.id, target.body.id, path);
    // Nothing owned yet: the dev holds every role of the account (ENDPOINT_INVOKE aside).
    expect((await invoke(path)).status).toBe(200);
    const owned = await s.api('PATCH', `/agents/${target.body.id}`, { ownerId: sa.id, ownerType: 'SERVICE_ACCOUNT' });
    expect(owned.status).toBe(200);
    expect(isProblem(await invoke(path), 403, 'REVISION_NOT_APPROVED')).toBe(true);
    // Back to a user: the account owns nothing again and the code runs.
    const me = await s.api('GET', '/me');
    expect((await s.api('PATCH', `/agents/${target.body.id}`, { ownerId: me.body.id, ownerType: 'USER' })).status).toBe(200);
    expect((await invoke(path)).status).toBe(200);
  });
});

describe('GET …/approval', () => {
  test('held: it needs COMPONENT_ADMIN or ENDPOINT_ADMIN of the component\'s workspace, and says who approved', async () => {
    const admin = await s.user(['INSTANCE_ADMIN']);
    const c = await s.api('POST', '/components', { name: 'a', kind: 'lowcode', elements: [{ name: 'r', code: 'return 1', visible: true }] }, admin.key);
    const at = `/components/${c.body.id}/revisions/${c.body.latestRevision.id}/approval`;
    const seen = await s.api('GET', at, undefined, dev.key);
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ revisionId: c.body.latestRevision.id, approved: true, approvedBy: admin.id, approvals: [{ principalId: admin.id, roles: ['INSTANCE_ADMIN'] }] });
    expect(isProblem(await s.api('GET', at, undefined, caller.key), 403)).toBe(true);
  });

  // Was a bug (low, information disclosure): each approval listed the approver's workspaceIds, so an
  // INSTANCE_ADMIN's private workspace id reached every COMPONENT_ADMIN of `default`. Only the
  // workspaces the reader belongs to are named now (all for an INSTANCE_ADMIN).
  test('it never names workspaces the reader cannot see; an INSTANCE_ADMIN sees them all', async () => {
    const hidden = await s.api('POST', '/workspaces', { name: 'private' });
    const me = await s.api('GET', '/me');
    const admin = await s.user(['INSTANCE_ADMIN'], [...me.body.workspaceIds, hidden.body.id]);
    const c = await s.api('POST', '/components', { name: 'b', kind: 'lowcode', workspaceId: me.body.workspaceIds[0], elements: [{ name: 'r', code: 'return 2', visible: true }] }, admin.key);
    const visible = ((await s.api('GET', '/workspaces', undefined, dev.key)).body.data as { id: string }[]).map((w) => w.id);
    expect(visible).not.toContain(hidden.body.id);
    const seen = await s.api('GET', `/components/${c.body.id}/revisions/${c.body.latestRevision.id}/approval`, undefined, dev.key);
    expect(seen.status).toBe(200);
    expect(JSON.stringify(seen.body)).not.toContain(hidden.body.id);
    expect(seen.body.approvals[0].workspaceIds).toEqual([me.body.workspaceIds[0]]);
    const all = await s.api('GET', `/components/${c.body.id}/revisions/${c.body.latestRevision.id}/approval`);
    expect(all.body.approvals[0].workspaceIds).toContain(hidden.body.id);
  });
});
