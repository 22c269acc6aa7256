// Spec, Authentication rule 9, for a service account that holds INSTANCE_ADMIN: it runs code
// approved for it only (saved or selected by an INSTANCE_ADMIN with its own credential, or approved
// by one), else 403 REVISION_NOT_APPROVED; CALLER mode runs the latest code. Other accounts:
// ./account-approval.test.ts. On every database: the index snapshot reads approvals itself.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startStack, type Stack } from '../helpers/stack.ts';
import { activateDeployment, deployed as deployedVia } from '../helpers/deployments.ts';
import { databaseCases, dropPostgresSchema } from '../helpers/databases.ts';

const body = async (r: Response) => {
  const text = await r.text();
  return text ? JSON.parse(text) : null;
};

for (const database of databaseCases()) describe(`on ${database.name}`, () => {
  let s: Stack;
  let invoker: { id: string; key: string };
  beforeAll(async () => {
    s = await startStack(database.env, { postgresSchema: database.postgresSchema });
    invoker = await s.principal(['ENDPOINT_INVOKE']);
  });
  afterAll(async () => {
    await s.close();
    await dropPostgresSchema(database.postgresSchema);
  });

  const deployed = (componentId: string, revisionId: string) => deployedVia(s, componentId, revisionId);
  const activate = (componentId: string, deploymentId: string) => activateDeployment(s, componentId, deploymentId);

    test('an administrator service account runs approved code only: newer unapproved code does not replace it', async () => {
      const author = await s.principal(['COMPONENT_ADMIN']);
      const adminAccount = await s.principal(['INSTANCE_ADMIN'], { kind: 'SERVICE_ACCOUNT' });
      const plainAccount = await s.principal(['COMPONENT_ADMIN'], { kind: 'SERVICE_ACCOUNT' });
      const made = await s.api('POST', '/api/v1/components', { name: `approval-${crypto.randomUUID().slice(0, 6)}`, kind: 'lowcode', elements: [{ name: 'v', code: 'return 1;' }] }, author.key);
      expect(made.status).toBe(201);
      const componentId = made.body.id as string;
      const approval = async (revisionId: string) => (await s.api('GET', `/api/v1/components/${componentId}/revisions/${revisionId}/approval`)).body;
      const authorsApproval = { principalId: author.id, roles: ['COMPONENT_ADMIN'], workspaceIds: [expect.any(String)], approvedAt: made.body.activeRevision.createdAt };
      expect(await approval(made.body.activeRevision.id)).toEqual({ revisionId: made.body.activeRevision.id, approved: false, approvedBy: null, approvals: [authorsApproval] });
      await s.endpoint({ method: 'GET', path: '/as-admin-account', componentId, popResult: 'v', executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: adminAccount.id } });
      await s.endpoint({ method: 'GET', path: '/as-plain-account', componentId, popResult: 'v', executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: plainAccount.id } });
      await s.endpoint({ method: 'GET', path: '/as-caller', componentId, popResult: 'v', executionPolicy: { mode: 'CALLER' } });
      const run = async (path: string) => {
        const r = await s.invoke('GET', path, { key: invoker.key });
        return r.status === 200 ? await body(r) : `${r.status} ${(await body(r)).code}`;
      };

      // Nothing approved for it yet: the administrator's account runs nothing (403, before any
      // execution); an account the author's rights cover runs the latest.
      const refused = await s.invoke('GET', '/as-admin-account', { key: invoker.key });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect(await body(refused)).toMatchObject({ status: 403, code: 'REVISION_NOT_APPROVED', detail: expect.stringContaining('approved to run as its service account') });
      expect(await run('/as-plain-account')).toBe(1);
      // The author's own approval counts only for the accounts its rights cover: not this one.
      const first = made.body.activeRevision.id as string;
      const byAuthor = await s.api('POST', `/api/v1/components/${componentId}/revisions/${first}/approve`, undefined, author.key);
      expect(byAuthor.status).toBe(200);
      expect(byAuthor.body).toEqual({ revisionId: first, approved: false, approvedBy: null, approvals: [authorsApproval] });
      expect(await run('/as-admin-account')).toBe('403 REVISION_NOT_APPROVED');
      const approved = await s.api('POST', `/api/v1/components/${componentId}/revisions/${first}/approve`);
      expect(approved.status).toBe(200);
      expect(approved.body).toEqual({
        revisionId: first,
        approved: true,
        approvedBy: s.platform.boot.adminPrincipalId,
        approvals: [authorsApproval, { principalId: s.platform.boot.adminPrincipalId, roles: ['INSTANCE_ADMIN'], workspaceIds: expect.any(Array), approvedAt: expect.any(String) }],
      });
      expect(await run('/as-admin-account')).toBe(1);

      // The author saves new code: it runs at once for everyone but the administrator's account.
      const changed = await s.api('PATCH', `/api/v1/components/${componentId}`, { elements: [{ name: 'v', code: 'return 2;' }] }, author.key);
      expect(changed.status).toBe(200);
      expect(await run('/as-admin-account')).toBe(1);
      expect(await run('/as-plain-account')).toBe(2);
      expect(await run('/as-caller')).toBe(2);
      // Approved, it runs there too; code an INSTANCE_ADMIN saves is approved by saving it.
      expect((await s.api('POST', `/api/v1/components/${componentId}/revisions/${changed.body.activeRevision.id}/approve`)).status).toBe(200);
      expect(await run('/as-admin-account')).toBe(2);
      const byAdmin = await s.api('PATCH', `/api/v1/components/${componentId}`, { elements: [{ name: 'v', code: 'return 3;' }] });
      expect((await approval(byAdmin.body.activeRevision.id)).approvedBy).toBe(s.platform.boot.adminPrincipalId);
      expect(await run('/as-admin-account')).toBe(3);

      // Code run as an administrator (CALLER mode) can neither save approved code nor approve.
      const sneaky = await s.api('POST', '/api/v1/components', { name: `sneaky-${crypto.randomUUID().slice(0, 6)}`, kind: 'lowcode', elements: [{
        name: 'r',
        code: `const changed = await api.platform("PATCH", "/api/v1/components/${componentId}", { elements: [{ name: "v", code: "return 4;" }] });
          const approve = await api.platform("POST", "/api/v1/components/${componentId}/revisions/" + changed.body.activeRevision.id + "/approve");
          return [changed.status, approve.status];`,
      }] }, author.key);
      await s.endpoint({ method: 'POST', path: '/sneaky', componentId: sneaky.body.id, popResult: 'r', executionPolicy: { mode: 'CALLER' } });
      expect(await body(await s.invoke('POST', '/sneaky'))).toEqual([200, 403]); // invoked by the INSTANCE_ADMIN
      expect(await run('/as-caller')).toBe(4);
      expect(await run('/as-admin-account')).toBe(3);
      // Saved from inside an execution, it is nobody's approval: no account runs it.
      expect(await run('/as-plain-account')).toBe(3);
    });

    test('an administrator service account runs a pinned revision when any revision with its digest is approved', async () => {
      const author = await s.principal(['COMPONENT_ADMIN']);
      const adminAccount = await s.principal(['INSTANCE_ADMIN'], { kind: 'SERVICE_ACCOUNT' });
      const original = [{ name: 'v', code: 'return "pinned";' }];
      const made = await s.api('POST', '/api/v1/components', { name: `pin-${crypto.randomUUID().slice(0, 6)}`, kind: 'lowcode', elements: original }); // the admin's: approved
      const componentId = made.body.id as string;
      await s.endpoint({ method: 'GET', path: '/pinned-admin-account', componentId, componentDigest: made.body.activeRevision.digest, popResult: 'v', executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: adminAccount.id } });
      const run = async () => { const r = await s.invoke('GET', '/pinned-admin-account', { key: invoker.key }); return [r.status, await body(r)]; };
      expect(await run()).toEqual([200, 'pinned']);
      // The author saves other code, then the original again: a new, unapproved revision with the pinned digest.
      await s.api('PATCH', `/api/v1/components/${componentId}`, { elements: [{ name: 'v', code: 'return "other";' }] }, author.key);
      const again = await s.api('PATCH', `/api/v1/components/${componentId}`, { elements: original }, author.key);
      expect(again.body.activeRevision.digest).toBe(made.body.activeRevision.digest);
      expect(again.body.activeRevision.number).toBe(3);
      expect(await run()).toEqual([200, 'pinned']);
    });

    test('an administrator service account runs a node revision an INSTANCE_ADMIN selected, not one only its author did', async () => {
      const author = await s.principal(['COMPONENT_ADMIN']);
      const adminAccount = await s.principal(['INSTANCE_ADMIN'], { kind: 'SERVICE_ACCOUNT' });
      const created = await s.api('POST', '/api/v1/components', { name: 'node-approval', kind: 'node', source: 'export default async () => "v1";' }, author.key);
      expect(created.status).toBe(201);
      const componentId = created.body.id as string;
      await s.endpoint({ method: 'GET', path: '/node-approval', componentId, popResult: 'default', executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: adminAccount.id } });
      // Nothing selected yet: not ready (503), whoever the account.
      const notReady = await s.invoke('GET', '/node-approval', { key: invoker.key });
      expect(notReady.status).toBe(503);
      expect((await body(notReady)).code).toBe('COMPONENT_NOT_READY');
      const deployment = await deployed(componentId, created.body.latestRevision.id);
      // Selected by its author: ready, but not approved for the administrator's account.
      expect((await s.api('POST', `/api/v1/components/${componentId}/deployments/${deployment}/activate`, undefined, author.key)).status).toBe(200);
      const refused = await s.invoke('GET', '/node-approval', { key: invoker.key });
      expect(refused.status).toBe(403);
      expect((await body(refused)).code).toBe('REVISION_NOT_APPROVED');
      // An INSTANCE_ADMIN selecting it (again) approves it.
      await activate(componentId, deployment);
      expect((await s.api('GET', `/api/v1/components/${componentId}/revisions/${created.body.latestRevision.id}/approval`)).body).toMatchObject({ approved: true, approvedBy: s.platform.boot.adminPrincipalId });
      expect(await body(await s.invoke('GET', '/node-approval', { key: invoker.key }))).toBe('v1');
    });
});
