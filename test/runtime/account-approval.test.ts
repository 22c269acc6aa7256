// DESIGN §8: rule 9 extended to every service account. A revision executes as an account only when
// its author, or a principal who approved it, held every role of the account (ENDPOINT_INVOKE aside;
// INSTANCE_ADMIN holds all) and belonged to every workspace of it; otherwise the invocation answers
// 403 REVISION_NOT_APPROVED before any execution. Judged against the account's current rights: an
// account that gains a role runs nothing approved for its weaker self. On every database.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startStack, type Stack } from '../helpers/stack.ts';
import { databaseCases, dropPostgresSchema } from '../helpers/databases.ts';
import { deployed } from '../helpers/deployments.ts';
import { bumpIndexVersion, currentIndexVersion } from '../../src/core/definitions/index-version.ts';

const body = async (r: Response) => {
  const text = await r.text();
  return text ? JSON.parse(text) : null;
};
const unique = () => crypto.randomUUID().slice(0, 8);

for (const database of databaseCases()) describe(`on ${database.name}`, () => {
  let s: Stack;
  let invoker: { id: string; key: string };
  let w: string; // the workspace everything here lives in
  let w2: string; // a second one some accounts belong to as well
  beforeAll(async () => {
    s = await startStack(database.env, { postgresSchema: database.postgresSchema });
    invoker = await s.principal(['ENDPOINT_INVOKE']);
    w = (await s.api('POST', '/api/v1/workspaces', { name: `w-${unique()}` })).body.id;
    w2 = (await s.api('POST', '/api/v1/workspaces', { name: `w2-${unique()}` })).body.id;
  });
  afterAll(async () => {
    await s.close();
    await dropPostgresSchema(database.postgresSchema);
  });

  const user = (roles: string[], workspaceIds = [w]) => s.principal(roles, { workspaceIds });
  const account = (roles: string[], workspaceIds = [w]) => s.principal(roles, { kind: 'SERVICE_ACCOUNT', workspaceIds });
  /** A lowcode component `author` saves, returning `value`. */
  const component = async (author: { key: string }, value: unknown) => {
    const made = await s.api('POST', '/api/v1/components', { name: `c-${unique()}`, kind: 'lowcode', elements: [{ name: 'v', code: `return ${JSON.stringify(value)};` }] }, author.key);
    expect(made.status).toBe(201);
    return { id: made.body.id as string, revisionId: made.body.activeRevision.id as string };
  };
  /** An active Endpoint (made by the INSTANCE_ADMIN) running the component as the account. */
  const endpoint = async (componentId: string, accountId: string) => {
    const path = `/run-${unique()}`;
    const e = await s.endpoint({ method: 'GET', path, componentId, popResult: 'v', workspaceId: w, executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: accountId } });
    return { id: e.id as string, path };
  };
  /** The value it answers, or `status code`. */
  const run = async (path: string) => {
    const r = await s.invoke('GET', path, { key: invoker.key });
    return r.status === 200 ? await body(r) : `${r.status} ${(await body(r)).code}`;
  };
  const approve = (componentId: string, revisionId: string, key?: string) => s.api('POST', `/api/v1/components/${componentId}/revisions/${revisionId}/approve`, undefined, key);
  const approvals = async (componentId: string, revisionId: string) => (await s.api('GET', `/api/v1/components/${componentId}/revisions/${revisionId}/approval`)).body;

  test('a COMPONENT_ADMIN\'s code does not run as an AGENT_ADMIN account until someone holding both roles approves it', async () => {
    const author = await user(['COMPONENT_ADMIN']);
    const sa = await account(['AGENT_ADMIN']);
    const c = await component(author, 'mine');
    const e = await endpoint(c.id, sa.id);

    const refused = await s.invoke('GET', e.path, { key: invoker.key });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.headers.get('x-execution-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await body(refused)).toMatchObject({ status: 403, code: 'REVISION_NOT_APPROVED', detail: expect.stringContaining('every role of the account') });
    // Contract validation says so before anyone invokes it.
    const validated = await s.api('POST', `/api/v1/endpoints/${e.id}/validate`);
    expect(validated.body).toMatchObject({ valid: true, warnings: [expect.objectContaining({ code: 'REVISION_NOT_APPROVED', pointer: '/executionPolicy/serviceAccountId' })] });

    // Neither an approver lacking a role nor one lacking none of them but a workspace of the account counts.
    const lacksRole = await user(['COMPONENT_ADMIN', 'ENDPOINT_ADMIN']);
    expect((await approve(c.id, c.revisionId, lacksRole.key)).status).toBe(200);
    expect(await run(e.path)).toBe('403 REVISION_NOT_APPROVED');
    const twoWorkspaces = await account(['AGENT_ADMIN'], [w, w2]);
    const e2 = await endpoint(c.id, twoWorkspaces.id);
    const lacksWorkspace = await user(['COMPONENT_ADMIN', 'AGENT_ADMIN']);
    const approved = await approve(c.id, c.revisionId, lacksWorkspace.key);
    expect(approved.status).toBe(200);
    expect(await run(e.path)).toBe('mine'); // covers the one-workspace account
    expect(await run(e2.path)).toBe('403 REVISION_NOT_APPROVED');
    const inBoth = await user(['COMPONENT_ADMIN', 'AGENT_ADMIN'], [w, w2]);
    expect((await approve(c.id, c.revisionId, inBoth.key)).status).toBe(200);
    expect(await run(e2.path)).toBe('mine');
    expect((await s.api('POST', `/api/v1/endpoints/${e.id}/validate`)).body.warnings).toEqual([]);

    // What is stored: every approval with the rights it counts for, in order; none for an administrator account.
    const stored = await approvals(c.id, c.revisionId);
    expect(stored).toMatchObject({ revisionId: c.revisionId, approved: false, approvedBy: null });
    expect(stored.approvals.map((a: { principalId: string; roles: string[]; workspaceIds: string[] }) => [a.principalId, a.roles, a.workspaceIds])).toEqual([
      [author.id, ['COMPONENT_ADMIN'], [w]],
      [lacksRole.id, ['COMPONENT_ADMIN', 'ENDPOINT_ADMIN'], [w]],
      [lacksWorkspace.id, ['COMPONENT_ADMIN', 'AGENT_ADMIN'], [w]],
      [inBoth.id, ['COMPONENT_ADMIN', 'AGENT_ADMIN'], [w, w2]],
    ]);
    // Approving twice changes nothing.
    const again = await approve(c.id, c.revisionId, inBoth.key);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(stored);
  });

  test('the instance\'s default service account is held to the same rule', async () => {
    const author = await user(['COMPONENT_ADMIN']);
    const sa = await account(['AGENT_ADMIN']);
    const c = await component(author, 'default');
    const path = `/default-${unique()}`;
    const e = await s.endpoint({ method: 'GET', path, componentId: c.id, popResult: 'v', workspaceId: w });
    expect((await s.api('PUT', '/api/v1/endpoints/settings', { executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: sa.id } })).status).toBe(200);
    try {
      expect(await run(path)).toBe('403 REVISION_NOT_APPROVED');
      const validated = await s.api('POST', `/api/v1/endpoints/${e.id}/validate`);
      expect(validated.body.warnings).toEqual([expect.objectContaining({ code: 'REVISION_NOT_APPROVED', pointer: '/componentId' })]);
      expect((await approve(c.id, c.revisionId, (await user(['COMPONENT_ADMIN', 'AGENT_ADMIN'])).key)).status).toBe(200);
      expect(await run(path)).toBe('default');
    } finally {
      expect((await s.api('PUT', '/api/v1/endpoints/settings', { executionPolicy: { mode: 'CALLER' } })).status).toBe(200);
    }
  });

  test('an author who holds every role of the account runs at once; newer code by one who does not waits, the approved revision runs meanwhile', async () => {
    const both = await user(['COMPONENT_ADMIN', 'AGENT_ADMIN']);
    const plain = await user(['COMPONENT_ADMIN']);
    const sa = await account(['AGENT_ADMIN']);
    const c = await component(both, 'v1');
    const e = await endpoint(c.id, sa.id);
    expect(await run(e.path)).toBe('v1');
    const saved = await s.api('PATCH', `/api/v1/components/${c.id}`, { elements: [{ name: 'v', code: 'return "v2";' }] }, plain.key);
    expect(saved.status).toBe(200);
    expect(await run(e.path)).toBe('v1');
    expect((await approve(c.id, saved.body.activeRevision.id, both.key)).status).toBe(200);
    expect(await run(e.path)).toBe('v2');
  });

  test('an account that gains a role after the approval runs nothing until code is approved for its new rights', async () => {
    const author = await user(['COMPONENT_ADMIN']);
    const approver = await user(['COMPONENT_ADMIN', 'AGENT_ADMIN']);
    const sa = await account(['AGENT_ADMIN']);
    const c = await component(author, 'ok');
    const e = await endpoint(c.id, sa.id);
    expect((await approve(c.id, c.revisionId, approver.key)).status).toBe(200);
    expect(await run(e.path)).toBe('ok');

    // The change bumps the index version in its own transaction, so runtimes judge again at once.
    const before = await currentIndexVersion(s.platform.db);
    const patched = await s.api('PATCH', `/api/v1/service-accounts/${sa.id}`, { roles: ['AGENT_ADMIN', 'ENDPOINT_ADMIN'] });
    expect(patched.status).toBe(200);
    expect(await currentIndexVersion(s.platform.db)).toBe(before + 1);
    expect(await run(e.path)).toBe('403 REVISION_NOT_APPROVED');
    const stronger = await user(['COMPONENT_ADMIN', 'AGENT_ADMIN', 'ENDPOINT_ADMIN']);
    expect((await approve(c.id, c.revisionId, stronger.key)).status).toBe(200);
    expect(await run(e.path)).toBe('ok');
    // A workspace gained counts the same; losing it again restores what ran.
    expect((await s.api('PATCH', `/api/v1/service-accounts/${sa.id}`, { workspaceIds: [w, w2] })).status).toBe(200);
    expect(await run(e.path)).toBe('403 REVISION_NOT_APPROVED');
    expect((await s.api('PATCH', `/api/v1/service-accounts/${sa.id}`, { workspaceIds: [w] })).status).toBe(200);
    expect(await run(e.path)).toBe('ok');
    // A status change bumps it too.
    const version = await currentIndexVersion(s.platform.db);
    expect((await s.api('PATCH', `/api/v1/service-accounts/${sa.id}`, { active: false })).status).toBe(200);
    expect(await currentIndexVersion(s.platform.db)).toBe(version + 1);
  });

  test('until runtimes rebuild, an account holding more than the index judged it by is refused', async () => {
    const author = await user(['COMPONENT_ADMIN', 'AGENT_ADMIN', 'ENDPOINT_ADMIN']);
    const sa = await account(['AGENT_ADMIN']);
    const c = await component(author, 'judged');
    const e = await endpoint(c.id, sa.id);
    expect(await run(e.path)).toBe('judged');
    // A role granted behind the index's back (no version bump): the runtime sees the account's new
    // rights, the index still those it judged by.
    const { principals } = s.platform.db.t;
    const { eq } = await import('drizzle-orm');
    await s.platform.db.write((q) => q.update(principals).set({ roles: ['AGENT_ADMIN', 'ENDPOINT_ADMIN'] }).where(eq(principals.id, sa.id)));
    s.platform.credentials.invalidate();
    const refused = await s.invoke('GET', e.path, { key: invoker.key });
    expect(refused.status).toBe(403);
    expect(await body(refused)).toMatchObject({ code: 'REVISION_NOT_APPROVED', detail: expect.stringContaining('has not been approved for yet') });
    // Judged again (the author's rights cover the new ones), it runs.
    await s.platform.publisher.published(await s.platform.db.write((q) => bumpIndexVersion(s.platform.db, q)));
    expect(await run(e.path)).toBe('judged');
  });

  test('an ENDPOINT_INVOKE-only account runs any COMPONENT_ADMIN\'s code of its workspaces (ENDPOINT_INVOKE grants nothing inside)', async () => {
    const author = await user(['COMPONENT_ADMIN']);
    const c = await component(author, 'anyone');
    const invokeOnly = await endpoint(c.id, (await account(['ENDPOINT_INVOKE'])).id);
    expect(await run(invokeOnly.path)).toBe('anyone');
    // Only that role is set aside: another one, or a workspace the author is not in, still counts.
    const withAgentAdmin = await endpoint(c.id, (await account(['ENDPOINT_INVOKE', 'AGENT_ADMIN'])).id);
    expect(await run(withAgentAdmin.path)).toBe('403 REVISION_NOT_APPROVED');
    const wider = await endpoint(c.id, (await account(['ENDPOINT_INVOKE'], [w, w2])).id);
    expect(await run(wider.path)).toBe('403 REVISION_NOT_APPROVED');
  });

  test('code run as an account neither approves nor saves approved code (api.platform); approving needs write access', async () => {
    const author = await user(['COMPONENT_ADMIN']);
    const target = await component(author, 'target');
    const sa = await account(['COMPONENT_ADMIN', 'AGENT_ADMIN']);
    const victim = await endpoint(target.id, sa.id);
    expect(await run(victim.path)).toBe('403 REVISION_NOT_APPROVED');
    // Code an administrator approved for the account tries to approve the target and to save over it.
    const sneaky = await s.api('POST', '/api/v1/components', { name: `sneaky-${unique()}`, kind: 'lowcode', elements: [{
      name: 'v',
      code: `const approve = await api.platform("POST", "/api/v1/components/${target.id}/revisions/${target.revisionId}/approve");
        const saved = await api.platform("PATCH", "/api/v1/components/${target.id}", { elements: [{ name: "v", code: "return 'planted';" }] });
        return [approve.status, approve.body.code, saved.status];`,
    }], workspaceId: w });
    const e = await endpoint(sneaky.body.id, sa.id);
    expect(await run(e.path)).toEqual([403, 'FORBIDDEN', 200]);
    expect(await run(victim.path)).toBe('403 REVISION_NOT_APPROVED');
    const planted = (await s.api('GET', `/api/v1/components/${target.id}`)).body.activeRevision;
    expect((await approvals(target.id, planted.id)).approvals).toEqual([]);
    expect((await approvals(target.id, target.revisionId)).approvals.map((a: { principalId: string }) => a.principalId)).toEqual([author.id]);

    // Reading is not enough to approve; another workspace's COMPONENT_ADMIN does not see it.
    expect((await approve(target.id, target.revisionId, (await user(['ENDPOINT_ADMIN', 'AGENT_ADMIN'])).key)).status).toBe(403);
    expect((await approve(target.id, target.revisionId, (await user(['COMPONENT_ADMIN', 'AGENT_ADMIN'], [w2])).key)).status).toBe(404);
  });

  test('a pinned digest runs as the account when any revision with that digest is approved for it', async () => {
    const both = await user(['COMPONENT_ADMIN', 'AGENT_ADMIN']);
    const plain = await user(['COMPONENT_ADMIN']);
    const sa = await account(['AGENT_ADMIN']);
    const made = await s.api('POST', '/api/v1/components', { name: `pin-${unique()}`, kind: 'lowcode', elements: [{ name: 'v', code: 'return "pinned";' }] }, plain.key);
    const componentId = made.body.id as string;
    const path = `/pinned-${unique()}`;
    await s.endpoint({ method: 'GET', path, componentId, componentDigest: made.body.activeRevision.digest, popResult: 'v', workspaceId: w, executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: sa.id } });
    expect(await run(path)).toBe('403 REVISION_NOT_APPROVED');
    // The same content saved again by someone holding both roles: a revision with that digest, approved.
    await s.api('PATCH', `/api/v1/components/${componentId}`, { elements: [{ name: 'v', code: 'return "other";' }] }, plain.key);
    const again = await s.api('PATCH', `/api/v1/components/${componentId}`, { elements: [{ name: 'v', code: 'return "pinned";' }] }, both.key);
    expect(again.body.activeRevision.digest).toBe(made.body.activeRevision.digest);
    expect(await run(path)).toBe('pinned');
  });

  test('activating a node deployment is the activator\'s approval; without a selected ready revision it stays 503', async () => {
    const author = await user(['COMPONENT_ADMIN']);
    const activator = await user(['COMPONENT_ADMIN', 'AGENT_ADMIN']);
    const sa = await account(['AGENT_ADMIN']);
    const made = await s.api('POST', '/api/v1/components', { name: `node-${unique()}`, kind: 'node', source: 'export default async () => "built";' }, author.key);
    expect(made.status).toBe(201);
    const componentId = made.body.id as string;
    const revisionId = made.body.latestRevision.id as string;
    const path = `/node-${unique()}`;
    await s.endpoint({ method: 'GET', path, componentId, popResult: 'default', workspaceId: w, executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: sa.id } });
    expect(await run(path)).toBe('503 COMPONENT_NOT_READY');
    const deployment = await deployed(s, componentId, revisionId);
    expect((await s.api('POST', `/api/v1/components/${componentId}/deployments/${deployment}/activate`, undefined, author.key)).status).toBe(200);
    expect(await run(path)).toBe('403 REVISION_NOT_APPROVED');
    // Activating it again, by someone holding both roles, approves it for the account.
    expect((await s.api('POST', `/api/v1/components/${componentId}/deployments/${deployment}/activate`, undefined, activator.key)).status).toBe(200);
    expect((await approvals(componentId, revisionId)).approvals.map((a: { principalId: string }) => a.principalId)).toEqual([author.id, activator.id]);
    expect(await run(path)).toBe('built');
  });
});
