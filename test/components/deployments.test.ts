// Deployments of node components on every database, with the real executor as verifier: building →
// ready | failed, activation, rollback, DEPLOYMENT_NOT_READY, saved code never replacing the
// selected revision, audit and index publication.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { databaseCases, dropPostgresSchema } from '../helpers/databases.ts';
import { startComponentHarness, type ComponentHarness } from './harness.ts';
import { resolveRevision } from '../../src/components/index.ts';
import { currentIndexVersion } from '../../src/core/definitions/index-version.ts';
import { DeploymentService } from '../../src/components/deployments.ts';
import { silentLogger } from '../../src/core/log.ts';

type Revision = { id: string; number: number; digest: string; status: string };
type Component = { id: string; version: number; latestRevision: Revision | null; activeRevision: Revision | null };
type Deployment = { id: string; revisionId: string; status: 'building' | 'ready' | 'failed'; error: string | null; active: boolean; createdAt: string; readyAt: string | null };
type Problem = { code: string; detail: string; errors?: { pointer: string; message: string }[] };

const moduleReturning = (value: number) => `export default async (api: unknown): Promise<number> => ${value};\n`;

for (const database of databaseCases()) describe(`on ${database.name}`, () => {

let h: ComponentHarness;
let compAdmin: { id: string; key: string };
let endpointAdmin: { id: string; key: string };

beforeAll(async () => {
  h = await startComponentHarness(database);
  compAdmin = await h.principal('comp', ['COMPONENT_ADMIN']);
  endpointAdmin = await h.principal('endp', ['ENDPOINT_ADMIN']);
});
afterAll(async () => {
  await h.close();
  await dropPostgresSchema(database.postgresSchema);
});

async function nodeComponent(source = moduleReturning(1)) {
  const r = await h.json<Component>('POST', '/api/v1/components', { key: compAdmin.key, body: { name: 'N', kind: 'node', source } });
  expect(r.status).toBe(201);
  return r.body;
}
const component = async (id: string) => (await h.json<Component>('GET', `/api/v1/components/${id}`, { key: compAdmin.key })).body;
async function deploy(componentId: string, revisionId: string) {
  const r = await h.json<Deployment>('POST', `/api/v1/components/${componentId}/deployments`, { key: compAdmin.key, body: { revisionId } });
  expect(r.status).toBe(202);
  return r.body;
}
async function deployed(componentId: string, revisionId: string) {
  const started = await deploy(componentId, revisionId);
  await h.deployments.idle();
  return (await h.json<Deployment>('GET', `/api/v1/components/${componentId}/deployments/${started.id}`, { key: compAdmin.key })).body;
}
const activate = (componentId: string, deploymentId: string, key = compAdmin.key) =>
  h.json<Deployment & Problem>('POST', `/api/v1/components/${componentId}/deployments/${deploymentId}/activate`, { key });
const statuses = async (id: string) =>
  (await h.json<{ data: Revision[] }>('GET', `/api/v1/components/${id}/revisions`, { key: compAdmin.key })).body.data.map((r) => [r.number, r.status]);

describe('building → ready, activation and rollback', () => {
  test('a deployment answers 202 building, then becomes ready with readyAt; a ready revision is not used until activated', async () => {
    const c = await nodeComponent();
    const started = await deploy(c.id, c.latestRevision!.id);
    expect(Object.keys(started).sort()).toEqual(['active', 'createdAt', 'error', 'id', 'readyAt', 'revisionId', 'status']);
    expect(started).toMatchObject({ revisionId: c.latestRevision!.id, status: 'building', error: null, active: false, readyAt: null });
    await h.deployments.idle();
    const done = (await h.json<Deployment>('GET', `/api/v1/components/${c.id}/deployments/${started.id}`, { key: compAdmin.key })).body;
    expect(done).toMatchObject({ status: 'ready', error: null, active: false });
    expect(Date.parse(done.readyAt!)).toBeGreaterThanOrEqual(Date.parse(done.createdAt));
    expect((await component(c.id)).activeRevision).toBeNull();
    expect(await resolveRevision(h.db, c.id)).toBeNull();
  });

  test('activate selects the revision (200), calls the hook, bumps and publishes the index version, audits', async () => {
    const c = await nodeComponent();
    const d = await deployed(c.id, c.latestRevision!.id);
    const version = await currentIndexVersion(h.db);
    const published = h.published.length;
    const hooks = h.hookCalls.length;
    const r = await activate(c.id, d.id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: d.id, status: 'ready', active: true });
    expect(await component(c.id)).toMatchObject({ version: 1, activeRevision: { id: c.latestRevision!.id, status: 'active' } });
    const bumped = await currentIndexVersion(h.db);
    expect(bumped).toBeGreaterThan(version);
    expect(h.published.slice(published)).toEqual([bumped]);
    expect(h.hookCalls.slice(hooks).map((x) => [x.component.id, x.component.activeRevisionId, x.revision.id, x.revision.status])).toEqual([[c.id, c.latestRevision!.id, c.latestRevision!.id, 'active']]);
    expect((await resolveRevision(h.db, c.id))?.revision).toMatchObject({ id: c.latestRevision!.id, content: { source: expect.stringContaining('export default') } });

    const audit = await h.db.read((q) => q.select().from(h.db.t.audit).where(eq(h.db.t.audit.resourceId, d.id)));
    expect(audit.map((a) => a.action).sort()).toEqual(['deployment.activate', 'deployment.create', 'deployment.ready']);
    const activation = audit.find((a) => a.action === 'deployment.activate')!;
    expect(activation).toMatchObject({ actorId: compAdmin.id, resourceType: 'deployment', beforeVersion: 0, afterVersion: 1 });
    expect(activation.details).toMatchObject({ componentId: c.id, revisionId: c.latestRevision!.id });

    // Activating the active attempt again changes nothing.
    const again = await activate(c.id, d.id);
    expect(again.status).toBe(200);
    expect(await currentIndexVersion(h.db)).toBe(bumped);
    expect((await component(c.id)).version).toBe(1);
  });

  test('saved code never replaces the selected revision; deploy + activate the new one; rollback to the earlier ready one', async () => {
    const c = await nodeComponent(moduleReturning(1));
    const first = await deployed(c.id, c.latestRevision!.id);
    await activate(c.id, first.id);

    const saved = await h.json<Component>('PATCH', `/api/v1/components/${c.id}`, { key: compAdmin.key, body: { source: moduleReturning(2) } });
    expect(saved.body).toMatchObject({ latestRevision: { number: 2, status: 'pending' }, activeRevision: { number: 1, status: 'active' } });
    expect((await resolveRevision(h.db, c.id))?.revision.number).toBe(1);

    const second = await deployed(c.id, saved.body.latestRevision!.id);
    expect(second.status).toBe('ready');
    expect((await component(c.id)).activeRevision!.number).toBe(1);
    await activate(c.id, second.id);
    expect(await statuses(c.id)).toEqual([[2, 'active'], [1, 'superseded']]);
    expect((await resolveRevision(h.db, c.id))?.revision.number).toBe(2);

    const version = await currentIndexVersion(h.db);
    const rollback = await activate(c.id, first.id);
    expect(rollback.status).toBe(200);
    expect(await statuses(c.id)).toEqual([[2, 'superseded'], [1, 'active']]);
    expect((await component(c.id)).activeRevision!.number).toBe(1);
    expect((await resolveRevision(h.db, c.id))?.revision.number).toBe(1);
    expect(await currentIndexVersion(h.db)).toBe(version + 1);
    const list = (await h.json<{ data: Deployment[] }>('GET', `/api/v1/components/${c.id}/deployments`, { key: compAdmin.key })).body.data;
    expect(list.map((d) => [d.id, d.active])).toEqual([[second.id, false], [first.id, true]]);
    // A list-engine list: filtered by a field, projected.
    const activeOnly = await h.json<{ data: Record<string, unknown>[] }>('GET', `/api/v1/components/${c.id}/deployments?filter=${encodeURIComponent(JSON.stringify({ field: 'active', op: 'true' }))}&fields=id,status`, { key: compAdmin.key });
    expect(activeOnly.body.data).toEqual([{ id: first.id, status: 'ready' }]);
  });

  test('concurrent activations of one component leave exactly one revision active', async () => {
    const c = await nodeComponent(moduleReturning(1));
    const revisionIds = [c.latestRevision!.id];
    for (const n of [2, 3]) {
      const r = await h.json<Component>('PATCH', `/api/v1/components/${c.id}`, { key: compAdmin.key, body: { source: moduleReturning(n) } });
      revisionIds.push(r.body.latestRevision!.id);
    }
    const ready = await Promise.all(revisionIds.map((id) => deployed(c.id, id)));
    const results = await Promise.all(ready.map((d) => activate(c.id, d.id)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const states = await statuses(c.id);
    expect(states.filter(([, s]) => s === 'active')).toHaveLength(1);
    const list = (await h.json<{ data: Deployment[] }>('GET', `/api/v1/components/${c.id}/deployments`, { key: compAdmin.key })).body.data;
    const activeDeployments = list.filter((d) => d.active);
    expect(activeDeployments).toHaveLength(1);
    const selected = (await component(c.id)).activeRevision!;
    expect(selected.status).toBe('active');
    expect(activeDeployments[0]!.revisionId).toBe(selected.id);
  });
});

describe('failures', () => {
  test('a syntax error is caught at save (422), before any deployment', async () => {
    const r = await h.json<Problem>('POST', '/api/v1/components', { key: compAdmin.key, body: { name: 'N', kind: 'node', source: 'export default async (api) => {\n  return 1 +;\n};' } });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('SOURCE_INVALID');
    expect(r.body.errors).toEqual([{ pointer: '/source', message: expect.stringMatching(/^line 2, column \d+: /) }]);
  });

  test('a default export that is not a function fails the deployment with the reason; activating it is 409 DEPLOYMENT_NOT_READY', async () => {
    const c = await nodeComponent('export default 42;\n');
    const d = await deployed(c.id, c.latestRevision!.id);
    expect(d).toMatchObject({ status: 'failed', active: false, readyAt: null });
    expect(d.error).toContain('default export is not a function');
    const r = await activate(c.id, d.id);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('DEPLOYMENT_NOT_READY');
    expect((await component(c.id)).activeRevision).toBeNull();
    const audit = await h.db.read((q) => q.select().from(h.db.t.audit).where(eq(h.db.t.audit.resourceId, d.id)));
    expect(audit.find((a) => a.action === 'deployment.failed')?.details).toMatchObject({ error: expect.stringContaining('not a function') });
  });

  test('a module that throws while loading fails with its message', async () => {
    const c = await nodeComponent('throw new Error("cannot start here");\nexport default async () => 1;\n');
    const d = await deployed(c.id, c.latestRevision!.id);
    expect(d.status).toBe('failed');
    expect(d.error).toContain('cannot start here');
  });

  test('a building deployment cannot be activated (409 DEPLOYMENT_NOT_READY)', async () => {
    const c = await nodeComponent('await new Promise((resolve) => setTimeout(resolve, 400));\nexport default async () => 1;\n');
    const d = await deploy(c.id, c.latestRevision!.id);
    const r = await activate(c.id, d.id);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'DEPLOYMENT_NOT_READY', detail: expect.stringContaining('building') });
    await h.deployments.idle();
    expect((await activate(c.id, d.id)).status).toBe(200);
  });

  test('a broken earlier deployment does not disturb the selected revision', async () => {
    const c = await nodeComponent(moduleReturning(1));
    await activate(c.id, (await deployed(c.id, c.latestRevision!.id)).id);
    const broken = await h.json<Component>('PATCH', `/api/v1/components/${c.id}`, { key: compAdmin.key, body: { source: 'export const notDefault = 1;\n' } });
    const d = await deployed(c.id, broken.body.latestRevision!.id);
    expect(d.status).toBe('failed');
    expect(await statuses(c.id)).toEqual([[2, 'pending'], [1, 'active']]);
  });

  test('builds left building by a stopped control plane are failed at start', async () => {
    const c = await nodeComponent();
    const id = crypto.randomUUID();
    await h.db.read((q) => q.insert(h.db.t.deployments).values({
      id, componentId: c.id, revisionId: c.latestRevision!.id, status: 'building', error: null, active: false, createdBy: compAdmin.id, createdAt: new Date(Date.now() - 3_600_000), readyAt: null,
    }));
    expect(await h.deployments.failStaleBuilds()).toBeGreaterThanOrEqual(1);
    const r = await h.json<Deployment>('GET', `/api/v1/components/${c.id}/deployments/${id}`, { key: compAdmin.key });
    expect(r.body).toMatchObject({ status: 'failed', error: expect.stringContaining('interrupted') });
  });

  test('an attempt interrupted just before a restart is failed by the sweep once it is stale', async () => {
    const c = await nodeComponent();
    const id = crypto.randomUUID();
    await h.db.read((q) => q.insert(h.db.t.deployments).values({
      id, componentId: c.id, revisionId: c.latestRevision!.id, status: 'building', error: null, active: false, createdBy: compAdmin.id, createdAt: new Date(), readyAt: null,
    }));
    // Not stale yet at "start"; the running sweep (here with a 50 ms build timeout) fails it later.
    const quick = new DeploymentService({ db: h.db, publisher: { published: async () => {} }, onActiveRevisionChanged: async () => {}, verifier: { verify: async () => ({ ok: true }) }, log: silentLogger, buildTimeoutMs: 50 });
    const stop = quick.sweepStaleBuilds();
    try {
      let status = 'building';
      for (let i = 0; i < 50 && status === 'building'; i++) {
        await Bun.sleep(20);
        status = (await h.json<Deployment>('GET', `/api/v1/components/${c.id}/deployments/${id}`, { key: compAdmin.key })).body.status;
      }
      expect(status).toBe('failed');
    } finally {
      stop();
    }
  });
});

describe('requests that are refused', () => {
  test('lowcode and json-validator components are not deployed (409)', async () => {
    const r = await h.json<Component>('POST', '/api/v1/components', { key: compAdmin.key, body: { name: 'L', kind: 'lowcode', elements: [{ name: 'a', code: 'return 1' }] } });
    const d = await h.json<Problem>('POST', `/api/v1/components/${r.body.id}/deployments`, { key: compAdmin.key, body: { revisionId: r.body.latestRevision!.id } });
    expect(d.status).toBe(409);
    expect(d.body.code).toBe('CONFLICT');
  });

  test('the revision must be one of the component\'s (422 at /revisionId); the body is checked', async () => {
    const a = await nodeComponent();
    const b = await nodeComponent();
    for (const revisionId of [b.latestRevision!.id, crypto.randomUUID()]) {
      const r = await h.json<Problem>('POST', `/api/v1/components/${a.id}/deployments`, { key: compAdmin.key, body: { revisionId } });
      expect(r.status).toBe(422);
      expect(r.body.errors![0]!.pointer).toBe('/revisionId');
    }
    const bad = await h.json<Problem>('POST', `/api/v1/components/${a.id}/deployments`, { key: compAdmin.key, body: { revisionId: 'x', extra: 1 } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors!.map((e) => e.pointer).sort()).toEqual(['/extra', '/revisionId']);
  });

  test('unknown deployments are 404; another component\'s deployment is unknown here', async () => {
    const a = await nodeComponent();
    const b = await nodeComponent();
    const d = await deploy(b.id, b.latestRevision!.id);
    expect((await h.json('GET', `/api/v1/components/${a.id}/deployments/${d.id}`, { key: compAdmin.key })).status).toBe(404);
    expect((await activate(a.id, d.id)).status).toBe(404);
    expect((await h.json('GET', `/api/v1/components/${a.id}/deployments/nope`, { key: compAdmin.key })).status).toBe(404);
    await h.deployments.idle();
  });

  test('ENDPOINT_ADMIN may list and read deployments but not deploy or activate', async () => {
    const c = await nodeComponent();
    const d = await deployed(c.id, c.latestRevision!.id);
    expect((await h.json('GET', `/api/v1/components/${c.id}/deployments`, { key: endpointAdmin.key })).status).toBe(200);
    expect((await h.json('GET', `/api/v1/components/${c.id}/deployments/${d.id}`, { key: endpointAdmin.key })).status).toBe(200);
    expect((await h.json('POST', `/api/v1/components/${c.id}/deployments`, { key: endpointAdmin.key, body: { revisionId: c.latestRevision!.id } })).status).toBe(403);
    expect((await activate(c.id, d.id, endpointAdmin.key)).status).toBe(403);
  });

  test('deleting a component takes its deployments along', async () => {
    const c = await nodeComponent();
    await activate(c.id, (await deployed(c.id, c.latestRevision!.id)).id);
    expect((await h.json('DELETE', `/api/v1/components/${c.id}`, { key: compAdmin.key })).status).toBe(204);
    const rows = await h.db.read((q) => q.select().from(h.db.t.deployments).where(eq(h.db.t.deployments.componentId, c.id)));
    expect(rows).toHaveLength(0);
  });
});

});
