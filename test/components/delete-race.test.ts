// A component DELETE racing a write that binds the component: the DELETE waits for that write and
// then finds the Endpoint it activated (409), on both databases. On Postgres (read committed) the
// two transactions used to check and commit independently, leaving an active Endpoint bound to
// a deleted component.
import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { databaseCases } from '../helpers/databases.ts';
import { platformFor, type TestPlatform } from '../helpers/platform.ts';
import { TableComponentLookup } from '../../src/core/definitions/component-lookup.ts';

for (const database of databaseCases()) describe(`on ${database.name}`, () => {
  let p: TestPlatform;
  platformFor(database, (started) => {
    p = started;
  });

  test('DELETE waits for a binding write in flight, then refuses with 409 COMPONENT_IN_USE', async () => {
    const component = await p.json<{ id: string }>('POST', '/api/v1/components', {
      body: { name: 'raced', kind: 'lowcode', elements: [{ name: 'out', code: 'return 1;' }] },
    });
    expect(component.status).toBe(201);
    const endpoint = await p.json<{ id: string }>('POST', '/api/v1/endpoints', {
      body: { name: 'raced', method: 'GET', path: '/raced', componentId: component.body.id },
    });
    expect(endpoint.status).toBe(201);

    // The binding half of an activation, held open: resolve the component, mark the Endpoint active.
    const { promise: gate, resolve: release } = Promise.withResolvers<void>();
    const { promise: bound, resolve: markBound } = Promise.withResolvers<void>();
    const lookup = new TableComponentLookup(p.db);
    const binding = p.db.write(async (q) => {
      expect(await lookup.resolve(q, component.body.id, undefined)).not.toBeNull();
      await q.update(p.db.t.endpoints).set({ status: 'active' }).where(eq(p.db.t.endpoints.id, endpoint.body.id));
      markBound();
      await gate;
    });
    await bound;

    const deletion = p.json<{ code: string; dependents: { id: string }[] }>('DELETE', `/api/v1/components/${component.body.id}`);
    const early = await Promise.race([deletion.then(() => 'finished'), Bun.sleep(400).then(() => 'waiting')]);
    expect(early).toBe('waiting');
    release();
    await binding;
    const refused = await deletion;
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('COMPONENT_IN_USE');
    expect(refused.body.dependents.map((d) => d.id)).toContain(endpoint.body.id);
    expect((await p.json('GET', `/api/v1/components/${component.body.id}`)).status).toBe(200);
  });

  test('DELETE waits for an Endpoint being created with the component, then refuses with 409', async () => {
    const component = await p.json<{ id: string }>('POST', '/api/v1/components', {
      body: { name: 'raced-create', kind: 'lowcode', elements: [{ name: 'out', code: 'return 1;' }] },
    });
    expect(component.status).toBe(201);
    // The create's transaction held open after it bound the component (what checkBindings does).
    const { promise: gate, resolve: release } = Promise.withResolvers<void>();
    const { promise: bound, resolve: markBound } = Promise.withResolvers<void>();
    const lookup = new TableComponentLookup(p.db);
    const id = crypto.randomUUID();
    const creating = p.db.write(async (q) => {
      await lookup.hold(q, component.body.id);
      const now = new Date();
      const workspaceId = (await q.select().from(p.db.t.workspaces))[0]!.id;
      const createdBy = (await q.select().from(p.db.t.principals))[0]!.id;
      await q.insert(p.db.t.endpoints).values({
        id, workspaceId, name: 'disabled', description: null, method: 'GET', path: `/c/${id}`, shape: `GET /c/${id}`,
        status: 'disabled', componentId: component.body.id, definition: { successStatus: 200, timeoutMs: 10000 },
        contractStatus: null, version: 0, createdBy, createdAt: now, updatedAt: now,
      });
      markBound();
      await gate;
    });
    await bound;
    const deletion = p.json<{ code: string; dependents: { id: string }[] }>('DELETE', `/api/v1/components/${component.body.id}`);
    const early = await Promise.race([deletion.then(() => 'finished'), Bun.sleep(400).then(() => 'waiting')]);
    expect(early).toBe('waiting');
    release();
    await creating;
    const refused = await deletion;
    expect(refused.status).toBe(409);
    expect(refused.body.dependents.map((d) => d.id)).toContain(id);
  });
});
