// The index build reads every Endpoint's component side set-wise (src/core/definitions/bindings.ts). It
// must answer exactly as the per-binding lookup does (TableComponentLookup.resolve, .revisionAs), whatever
// the IN lists are cut into: checked here with lists of two ids over every kind of binding.
import { describe, expect, test } from 'bun:test';
import { platformFor, type TestPlatform } from '../../helpers/platform.ts';
import { databaseCases } from '../../helpers/databases.ts';
import { BindingsReader, type Binding } from '../../../src/core/definitions/bindings.ts';
import { TableComponentLookup } from '../../../src/core/definitions/component-lookup.ts';

for (const database of databaseCases()) describe(`on ${database.name}`, () => {
  let p: TestPlatform;
  platformFor(database, (started) => {
    p = started;
  });

  const api = async (method: string, path: string, body?: unknown) => {
    const r = await p.json<Record<string, any>>(method, path, { body });
    if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const deploy = async (componentId: string, revisionId: string) => {
    const d = await api('POST', `/api/v1/components/${componentId}/deployments`, { revisionId });
    for (let i = 0; i < 200 && (await api('GET', `/api/v1/components/${componentId}/deployments/${d.id}`)).status === 'building'; i++) await Bun.sleep(25);
    expect((await api('GET', `/api/v1/components/${componentId}/deployments/${d.id}`)).status).toBe('ready');
    return d.id as string;
  };

  test('every binding resolves as the per-binding lookup resolves it, and as a service account runs what the per-call lookup runs', async () => {
    const bindings: Binding[] = [];
    // lowcode: three revisions, the middle one's content saved again later (a digest twice)
    const low = await api('POST', '/api/v1/components', { name: 'low', kind: 'lowcode', elements: [{ name: 'a', code: 'return 1;' }] });
    const first = low.activeRevision;
    await api('PATCH', `/api/v1/components/${low.id}`, { elements: [{ name: 'a', code: 'return 2;' }] });
    await api('PATCH', `/api/v1/components/${low.id}`, { elements: [{ name: 'a', code: 'return 1;' }] });
    bindings.push({ componentId: low.id }, { componentId: low.id, digest: first.digest }, { componentId: low.id, digest: `sha256:${'0'.repeat(64)}` });
    // node: r1 selected, r2 built and selected once then rolled back, r3 pending, r4 built but never selected
    const node = await api('POST', '/api/v1/components', { name: 'node', kind: 'node', source: 'export default async () => 1;' });
    const r1 = node.latestRevision;
    const d1 = await deploy(node.id, r1.id);
    const r2 = (await api('PATCH', `/api/v1/components/${node.id}`, { source: 'export default async () => 2;' })).latestRevision;
    const d2 = await deploy(node.id, r2.id);
    await api('POST', `/api/v1/components/${node.id}/deployments/${d2}/activate`);
    await api('POST', `/api/v1/components/${node.id}/deployments/${d1}/activate`);
    const r3 = (await api('PATCH', `/api/v1/components/${node.id}`, { source: 'export default async () => 3;' })).latestRevision;
    const r4 = (await api('PATCH', `/api/v1/components/${node.id}`, { source: 'export default async () => 4;' })).latestRevision;
    await deploy(node.id, r4.id);
    // r5: r1's code saved again, pending, with r1's digest: a pin on that digest still runs r1
    const r5 = (await api('PATCH', `/api/v1/components/${node.id}`, { source: 'export default async () => 1;' })).latestRevision;
    expect(r5).toMatchObject({ digest: r1.digest, status: 'pending' });
    bindings.push({ componentId: node.id }, ...[r1, r2, r3, r4].map((r) => ({ componentId: node.id, digest: r.digest })));
    // a node component never deployed, a json-validator, and a component that does not exist
    const idle = await api('POST', '/api/v1/components', { name: 'idle', kind: 'node', source: 'export default async () => 0;' });
    const schema = await api('POST', '/api/v1/components', { name: 'v', kind: 'json-validator', schema: { type: 'object' } });
    bindings.push({ componentId: idle.id }, { componentId: schema.id }, { componentId: schema.id, digest: schema.activeRevision.digest }, { componentId: crypto.randomUUID() });

    // A COMPONENT_ADMIN's newest lowcode revision: not approved for an AGENT_ADMIN account, which
    // then runs the newest one that is (revision 3, the INSTANCE_ADMIN's).
    const author = await api('POST', '/api/v1/users', { name: 'author', email: `author-${crypto.randomUUID().slice(0, 8)}@example.com`, roles: ['COMPONENT_ADMIN'], platformAccess: true });
    const authorKey = (await api('POST', '/api/v1/api-keys', { principalId: author.id, name: 'k' })).key as string;
    const r4low = await p.json<Record<string, any>>('PATCH', `/api/v1/components/${low.id}`, { body: { elements: [{ name: 'a', code: 'return 4;' }] }, key: authorKey });
    expect(r4low.status).toBe(200);
    const account = { roles: ['AGENT_ADMIN'], workspaceIds: author.workspaceIds as string[] };

    const lookup = new TableComponentLookup(p.db);
    await p.db.write(async (q) => {
      const reader = await BindingsReader.load(p.db, q, bindings, bindings.map((b) => b.componentId), 2);
      for (const binding of bindings) {
        expect({ binding, bound: reader.resolve(binding) }).toEqual({ binding, bound: await lookup.resolve(q, binding.componentId, binding.digest) });
        // What runs as a service account: the index build and the per-call lookup agree too.
        expect({ binding, as: reader.revisionAs(binding, account) }).toEqual({ binding, as: await lookup.revisionAs(q, binding.componentId, binding.digest, account) });
      }
      const pinnedR1 = { componentId: node.id, digest: r1.digest };
      expect(reader.resolve(pinnedR1)?.revision?.id).toBe(r1.id);
      expect((await lookup.resolve(q, node.id, r1.digest))?.revision?.id).toBe(r1.id);
      // The INSTANCE_ADMIN saved all but r4low: approved for any account; an unknown digest runs nothing.
      const third = (await lookup.resolve(q, low.id, first.digest))!.revision!;
      expect(third.number).toBe(3);
      expect(reader.revisionAs({ componentId: low.id, digest: first.digest }, account)).toBe(third.id);
      expect(reader.revisionAs({ componentId: low.id, digest: `sha256:${'0'.repeat(64)}` }, account)).toBeNull();
      expect(reader.revisionAs({ componentId: low.id }, account)).toBe(third.id);
      expect(reader.revisionAs({ componentId: low.id }, { roles: ['COMPONENT_ADMIN'], workspaceIds: account.workspaceIds })).toBe(r4low.body.activeRevision.id);
      expect(reader.revisionAs({ componentId: node.id }, account)).toBe(r1.id);
    });
  });
});
