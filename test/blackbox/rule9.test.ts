// Black-box attacks on rule 9 for every service account (README "Components", the Approval
// paragraph; DESIGN §8): a COMPONENT_ADMIN (with ENDPOINT_ADMIN, so that it can bind Endpoints)
// tries to get its own code to run as an AGENT_ADMIN or INSTANCE_ADMIN service account. Every
// attack here held: each refusal is 403 problem+json REVISION_NOT_APPROVED with x-svc-oid, and the
// code behind it never ran (it would have created an agent named after the attempt).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { isProblem, startServer, type Reply, type Server } from './server.ts';

let s: Server;
let dev: { id: string; key: string };
let caller: { id: string; key: string };
let agentSa: { id: string; key: string };
let adminSa: { id: string; key: string };

beforeAll(async () => {
  s = await startServer();
  dev = await s.user(['COMPONENT_ADMIN', 'ENDPOINT_ADMIN']);
  caller = await s.user(['ENDPOINT_INVOKE']);
  agentSa = await s.serviceAccount(['AGENT_ADMIN', 'ENDPOINT_INVOKE']);
  adminSa = await s.serviceAccount(['INSTANCE_ADMIN']);
});
afterAll(() => s.stop());

/** Lowcode elements that create an agent named `mark` (proof that they ran) and return `mark`. */
const marking = (mark: string) => [{ name: 'r', visible: true, code: `await api.platform('POST', '/api/v1/agents', { name: ${JSON.stringify(mark)} }); return ${JSON.stringify(mark)};` }];

const agentNames = async (): Promise<string[]> => ((await s.api('GET', '/agents?limit=10000')).body.data as { name: string }[]).map((a) => a.name);

const refusedUnrun = async (reply: Reply, mark: string) => {
  expect(isProblem(reply, 403, 'REVISION_NOT_APPROVED')).toBe(true);
  expect(await agentNames()).not.toContain(mark);
};

const lowcode = async (mark: string, key = dev.key) => {
  const c = await s.api('POST', '/components', { name: `c-${mark}`, kind: 'lowcode', elements: marking(mark) }, key);
  expect(c.status).toBe(201);
  return c.body as { id: string; version: number; latestRevision: { id: string; digest: string } };
};

let paths = 0;
/** An active Endpoint running `componentId` as `accountId`, made by the admin (who may choose any account). */
const endpoint = async (componentId: string, accountId?: string, extra: Record<string, unknown> = {}) => {
  const path = `/r9-${++paths}`;
  const e = await s.api('POST', '/endpoints', { name: path, method: 'POST', path, componentId, ...(accountId ? { executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: accountId } } : {}), ...extra });
  expect(e.status).toBe(201);
  expect((await s.api('POST', `/endpoints/${e.body.id}/activate`)).status).toBe(200);
  return { id: e.body.id as string, path, call: () => s.invoke('POST', path, {}, caller.key) };
};

const version = async (kind: 'components' | 'endpoints', id: string) => (await s.api('GET', `/${kind}/${id}`)).body.version as number;

const deployReady = async (componentId: string, revisionId: string, key: string) => {
  const d = await s.api('POST', `/components/${componentId}/deployments`, { revisionId }, key);
  expect(d.status).toBe(202);
  for (let i = 0; i < 100; i++) {
    const g = await s.api('GET', `/components/${componentId}/deployments/${d.body.id}`, undefined, key);
    if (g.body.status !== 'building') return g.body as { id: string; status: string };
    await Bun.sleep(100);
  }
  throw new Error('deployment never finished');
};

describe('a COMPONENT_ADMIN\'s code never runs as a stronger service account', () => {
  test('its own component bound by an admin to an AGENT_ADMIN or INSTANCE_ADMIN account: 403 before execution', async () => {
    for (const account of [agentSa, adminSa]) {
      const mark = `own-${account.id}`;
      const c = await lowcode(mark);
      const e = await endpoint(c.id, account.id);
      await refusedUnrun(await e.call(), mark);
      const validation = await s.api('POST', `/endpoints/${e.id}/validate`, undefined, dev.key);
      expect(validation.body.warnings.map((w: { code: string }) => w.code)).toContain('REVISION_NOT_APPROVED');
    }
  });

  test('choosing the stronger account itself is refused at the pointer, on POST and on PATCH', async () => {
    const c = await lowcode('choose');
    const created = await s.api('POST', '/endpoints', { name: 'x', method: 'POST', path: '/choose', componentId: c.id, executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: agentSa.id } }, dev.key);
    expect(isProblem(created, 403)).toBe(true);
    expect(created.body.errors[0].pointer).toBe('/executionPolicy/serviceAccountId');
    const mine = await s.api('POST', '/endpoints', { name: 'x', method: 'POST', path: '/choose', componentId: c.id }, dev.key);
    const patched = await s.api('PATCH', `/endpoints/${mine.body.id}`, { version: mine.body.version, executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: adminSa.id } }, dev.key);
    expect(isProblem(patched, 403)).toBe(true);
    expect((await s.api('GET', `/endpoints/${mine.body.id}`)).body.executionPolicy ?? null).toBeNull();
  });

  test('PATCHing an admin-approved lowcode component: the approved revision keeps running, the new code never does', async () => {
    const c = await lowcode('approved-v1', (await s.user(['INSTANCE_ADMIN'])).key);
    const e = await endpoint(c.id, agentSa.id);
    expect((await e.call()).body).toEqual({ r: 'approved-v1' });
    const p = await s.api('PATCH', `/components/${c.id}`, { version: c.version, elements: marking('dev-v2') }, dev.key);
    expect(p.status).toBe(200);
    expect((await e.call()).body).toEqual({ r: 'approved-v1' });
    // Its own approval adds nothing: the dev lacks AGENT_ADMIN.
    const approve = await s.api('POST', `/components/${c.id}/revisions/${p.body.latestRevision.id}/approve`, undefined, dev.key);
    expect(approve.status).toBe(200);
    expect(approve.body.approved).toBe(false);
    expect((await e.call()).body).toEqual({ r: 'approved-v1' });
    // Pinning its own revision's digest: refused, nothing runs.
    const pin = await s.api('PATCH', `/endpoints/${e.id}`, { version: await version('endpoints', e.id), componentDigest: p.body.latestRevision.digest }, dev.key);
    expect(pin.status).toBe(200);
    await refusedUnrun(await e.call(), 'dev-v2');
    // Pinning the approved digest in upper-case hex runs the approved code.
    const upper = `sha256:${c.latestRevision.digest.slice(7).toUpperCase()}`;
    expect((await s.api('PATCH', `/endpoints/${e.id}`, { version: await version('endpoints', e.id), componentDigest: upper }, dev.key)).status).toBe(200);
    expect((await e.call()).body).toEqual({ r: 'approved-v1' });
    expect(await agentNames()).not.toContain('dev-v2');
  });

  test('the same content in a component of its own does not borrow another component\'s approval', async () => {
    const admin = await s.user(['INSTANCE_ADMIN']);
    const approved = await lowcode('twin', admin.key);
    const twin = await lowcode('twin');
    expect(twin.latestRevision.digest).toBe(approved.latestRevision.digest);
    const e = await endpoint(twin.id, adminSa.id, { componentDigest: approved.latestRevision.digest });
    await refusedUnrun(await e.call(), 'twin');
    const e2 = await endpoint(approved.id, adminSa.id);
    expect((await e2.call()).body).toEqual({ r: 'twin' });
  });

  test('an account that gains a role or a workspace after approval runs nothing approved for its weaker self, at once', async () => {
    const weak = await s.serviceAccount(['ENDPOINT_INVOKE']);
    const c = await lowcode('weak-ok');
    const e = await endpoint(c.id, weak.id);
    expect((await e.call()).body).toEqual({ r: 'weak-ok' });
    for (const change of [{ roles: ['ENDPOINT_INVOKE', 'AGENT_ADMIN'] }, { roles: ['INSTANCE_ADMIN'] }]) {
      expect((await s.api('PATCH', `/service-accounts/${weak.id}`, change)).status).toBe(200);
      expect(isProblem(await e.call(), 403, 'REVISION_NOT_APPROVED')).toBe(true);
    }
    const ws = await s.api('POST', '/workspaces', { name: 'second' });
    const me = await s.api('GET', '/me');
    expect((await s.api('PATCH', `/service-accounts/${weak.id}`, { roles: ['ENDPOINT_INVOKE'], workspaceIds: [...me.body.workspaceIds, ws.body.id] })).status).toBe(200);
    expect(isProblem(await e.call(), 403, 'REVISION_NOT_APPROVED')).toBe(true);
    // A dev of both workspaces approving again covers it; the old approval kept the old rights.
    const both = await s.user(['COMPONENT_ADMIN'], [...me.body.workspaceIds, ws.body.id]);
    expect((await s.api('POST', `/components/${c.id}/revisions/${c.latestRevision.id}/approve`, undefined, both.key)).status).toBe(200);
    expect((await e.call()).body).toEqual({ r: 'weak-ok' });
  });

  test('node: its own deployment activated by it answers 403; only a rollback to approved code runs', async () => {
    const admin = await s.user(['INSTANCE_ADMIN']);
    const n = await s.api('POST', '/components', { name: 'n', kind: 'node', source: `export default async () => 'admin-node';` }, admin.key);
    const d1 = await deployReady(n.body.id, n.body.latestRevision.id, admin.key);
    expect((await s.api('POST', `/components/${n.body.id}/deployments/${d1.id}/activate`, undefined, admin.key)).status).toBe(200);
    const e = await endpoint(n.body.id, agentSa.id);
    expect((await e.call()).body).toEqual({ default: 'admin-node' });
    const p = await s.api('PATCH', `/components/${n.body.id}`, { version: await version('components', n.body.id), source: `export default async (api) => { await api.platform('POST', '/api/v1/agents', { name: 'node-dev' }); return 'dev-node'; };` }, dev.key);
    const d2 = await deployReady(n.body.id, p.body.latestRevision.id, dev.key);
    expect(d2.status).toBe('ready');
    expect((await s.api('POST', `/components/${n.body.id}/deployments/${d2.id}/activate`, undefined, dev.key)).status).toBe(200);
    await refusedUnrun(await e.call(), 'node-dev'); // no fallback to the older approved revision
    expect((await s.api('POST', `/components/${n.body.id}/deployments/${d1.id}/activate`, undefined, dev.key)).status).toBe(200);
    expect((await e.call()).body).toEqual({ default: 'admin-node' });
    expect((await s.api('POST', `/components/${n.body.id}/deployments/${d2.id}/activate`, undefined, dev.key)).status).toBe(200);
    await refusedUnrun(await e.call(), 'node-dev');
  });

  test('the instance default: only an INSTANCE_ADMIN sets it, and it runs no unapproved code', async () => {
    const put = { executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: adminSa.id }, currentUser: 'BUSINESS_USER' };
    const refused = await s.api('PUT', '/endpoints/settings', put, dev.key);
    expect(isProblem(refused, 403)).toBe(true);
    expect((await s.api('GET', '/endpoints/settings')).body.executionPolicy.mode).toBe('CALLER');
    try {
      expect((await s.api('PUT', '/endpoints/settings', put)).status).toBe(200);
      const c = await lowcode('by-default');
      const mine = await s.api('POST', '/endpoints', { name: 'd', method: 'POST', path: '/by-default', componentId: c.id }, dev.key);
      expect((await s.api('POST', `/endpoints/${mine.body.id}/activate`, undefined, dev.key)).status).toBe(200);
      await refusedUnrun(await s.invoke('POST', '/by-default', {}, caller.key), 'by-default');
      // SERVICE_ACCOUNT mode without an id is not "the default account": activation refuses it.
      const noId = await s.api('POST', '/endpoints', { name: 'n', method: 'POST', path: '/no-id', componentId: c.id, executionPolicy: { mode: 'SERVICE_ACCOUNT' } }, dev.key);
      expect(isProblem(await s.api('POST', `/endpoints/${noId.body.id}/activate`, undefined, dev.key), 422)).toBe(true);
    } finally {
      await s.api('PUT', '/endpoints/settings', { executionPolicy: { mode: 'CALLER' }, currentUser: 'BUSINESS_USER' });
    }
  });
});

describe('approvals are never made from inside an execution (api.platform)', () => {
  test('code an INSTANCE_ADMIN invokes in CALLER mode cannot approve, save or activate code for an account', async () => {
    const target = await lowcode('inside-target');
    const te = await endpoint(target.id, adminSa.id);
    const n = await s.api('POST', '/components', { name: 'n2', kind: 'node', source: `export default async () => 'dev-node-2';` }, dev.key);
    const d = await deployReady(n.body.id, n.body.latestRevision.id, dev.key);
    const ne = await endpoint(n.body.id, adminSa.id);
    const base = `/api/v1/components/${target.id}/revisions/${target.latestRevision.id}`;
    const trap = `
      const out = {};
      const call = async (k, m, p, b) => { const r = await api.platform(m, p, b); out[k] = r.status + ' ' + (r.body?.code ?? ''); };
      await call('approve', 'POST', '${base}/approve');
      await call('approveUpper', 'POST', '${base.toUpperCase().replace('/API/V1', '/api/v1').replace('/COMPONENTS/', '/components/').replace('/REVISIONS/', '/revisions/')}/approve/');
      await call('approveDots', 'POST', '/api/v1/x/..${base.slice(7)}/approve');
      await call('activate', 'POST', '/api/v1/components/${n.body.id}/deployments/${d.id}/activate');
      const cur = await api.platform('GET', '/api/v1/components/${target.id}');
      await call('patch', 'PATCH', '/api/v1/components/${target.id}', { version: cur.body.version, elements: ${JSON.stringify(marking('saved-inside'))} });
      await call('token', 'POST', '/api/v1/auth/token', {});
      await call('key', 'POST', '/api/v1/api-keys', { name: 'x' });
      return out;`;
    const t = await s.api('POST', '/components', { name: 'trap', kind: 'lowcode', elements: [{ name: 'r', code: trap, visible: true }] }, dev.key);
    const trapEp = await s.api('POST', '/endpoints', { name: 'trap', method: 'POST', path: '/trap', componentId: t.body.id, executionPolicy: { mode: 'CALLER' } }, dev.key);
    expect((await s.api('POST', `/endpoints/${trapEp.body.id}/activate`, undefined, dev.key)).status).toBe(200);
    const out = (await s.invoke('POST', '/trap', {})).body.r; // the admin walks into it
    expect(out).toEqual({ approve: '403 FORBIDDEN', approveUpper: '403 FORBIDDEN', approveDots: '403 FORBIDDEN', activate: '200 ', patch: '200 ', token: '403 CREDENTIAL_FROM_EXECUTION', key: '403 CREDENTIAL_FROM_EXECUTION' });
    // The activation and the save it made as the admin approved nothing.
    await refusedUnrun(await te.call(), 'saved-inside');
    await refusedUnrun(await ne.call(), 'never');
    const revisions = (await s.api('GET', `/components/${target.id}/revisions`)).body.data as { id: string; number: number }[];
    const newest = revisions.reduce((a, b) => (a.number > b.number ? a : b));
    expect((await s.api('GET', `/components/${target.id}/revisions/${newest.id}/approval`)).body).toMatchObject({ approved: false, approvedBy: null, approvals: [] });
    const nApproval = await s.api('GET', `/components/${n.body.id}/revisions/${n.body.latestRevision.id}/approval`);
    expect(nApproval.body.approvals.map((a: { principalId: string }) => a.principalId)).toEqual([dev.id]);
  });
});

describe('the approval routes refuse lesser roles and other workspaces', () => {
  test('roles, workspaces, unknown ids and methods', async () => {
    const c = await lowcode('routes');
    const at = `/components/${c.id}/revisions/${c.latestRevision.id}`;
    const ws = await s.api('POST', '/workspaces', { name: 'other' });
    const outsider = await s.user(['COMPONENT_ADMIN', 'ENDPOINT_ADMIN'], [ws.body.id]);
    for (const [method, path, key, status] of [
      ['GET', `${at}/approval`, caller.key, 403],
      ['POST', `${at}/approve`, caller.key, 403],
      ['POST', `${at}/approve`, (await s.user(['ENDPOINT_ADMIN', 'AGENT_ADMIN'])).key, 403],
      ['GET', `${at}/approval`, outsider.key, 404],
      ['POST', `${at}/approve`, outsider.key, 404],
      ['POST', `/components/${c.id}/revisions/${crypto.randomUUID()}/approve`, dev.key, 404],
      ['GET', `${at}/approve`, dev.key, 405],
      ['POST', `${at}/approval`, dev.key, 405],
      ['GET', `${at}/approval`, null, 401],
    ] as const) {
      const r = await s.api(method, path, undefined, key);
      expect(isProblem(r, status)).toBe(true);
    }
    // Nothing above added an approval.
    expect((await s.api('GET', `${at}/approval`)).body.approvals.map((a: { principalId: string }) => a.principalId)).toEqual([dev.id]);
    // A body that claims rights is ignored; a malformed one is 400.
    const claimed = await s.api('POST', `${at}/approve`, { roles: ['INSTANCE_ADMIN'], principalId: adminSa.id }, dev.key);
    expect(claimed.body).toMatchObject({ approved: false, approvals: [{ principalId: dev.id, roles: ['COMPONENT_ADMIN', 'ENDPOINT_ADMIN'] }] });
    expect(isProblem(await s.api('POST', `${at}/approve`, '{bad', dev.key), 400, 'MALFORMED_JSON')).toBe(true);
    expect(s.alive()).toBe(true);
  });
});
