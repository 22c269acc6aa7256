// Runs and GET /api/v1/agents/runs/{agentRunId}/events: entry points, access through the agent,
// atomic seq, and the list engine on real event data.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestPlatform, type TestPlatform, userKey } from '../helpers/platform.ts';
import { databaseCases, dropPostgresSchema } from '../helpers/databases.ts';

for (const database of databaseCases()) describe(`on ${database.name}`, () => {
  let p: TestPlatform;
  const keys: Record<string, string> = {};
  let agentId: string;

  async function principal(name: string, roles: string[], workspaceIds?: string[]) {
    keys[name] = await userKey(p, name, roles, workspaceIds);
  }

  beforeAll(async () => {
    p = await startTestPlatform(database.env, { postgresSchema: database.postgresSchema });
    const other = await p.json<{ id: string }>('POST', '/api/v1/workspaces', { body: { name: 'other' } });
    await principal('author', ['AGENT_ADMIN']);
    await principal('user', ['AGENT_USER']);
    await principal('colleague', ['AGENT_USER']);
    await principal('stranger', ['AGENT_ADMIN'], [other.body.id]);
    await principal('endpointsOnly', ['ENDPOINT_ADMIN']);
    // PAUSED: its runs stay queued, so that these tests see them as they were made (the engine's own
    // behaviour is tested in engine.test.ts).
    agentId = (await p.json<{ id: string }>('POST', '/api/v1/agents', { key: keys.author, body: { name: 'runner', status: 'PAUSED' } })).body.id;
  });
  afterAll(async () => {
    await p.close();
    await dropPostgresSchema(database.postgresSchema);
  });

  const start = (key = keys.user, body: unknown = { input: { q: 'hi' } }, agent = agentId) => p.json<Record<string, any>>('POST', `/api/v1/agents/${agent}/runs`, { key, body });
  const events = (runId: string, query = '', key = keys.user) => p.json<Record<string, any>>('GET', `/api/v1/agents/runs/${runId}/events${query}`, { key });

  describe('entry points', () => {
    test('a new run is queued and its first event is run.queued', async () => {
      const r = await start();
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ agentId, status: 'queued', parentRunId: null, stopReason: null, input: { q: 'hi' }, startedAt: null, endedAt: null });
      expect(r.body.rootRunId).toBe(r.body.id);
      expect((await p.json('GET', `/api/v1/agents/runs/${r.body.id}`, { key: keys.user })).body).toEqual(r.body);
      const e = await events(r.body.id);
      expect(e.status).toBe(200);
      expect(e.body.data).toHaveLength(1);
      expect(e.body.data[0]).toMatchObject({ runId: r.body.id, rootRunId: r.body.id, seq: 1, type: 'run.queued', tickIndex: null });
      expect(e.body.meta).toEqual({ offset: 0, limit: 100, hasMore: false });
    });

    test('cancel: queued → cancelled with run.cancelled (cancelled); again → 409 RUN_FINISHED', async () => {
      const r = await start();
      const c = await p.json<Record<string, any>>('POST', `/api/v1/agents/runs/${r.body.id}/cancel`, { key: keys.user });
      expect(c.status).toBe(202);
      expect(c.body).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
      expect(Date.parse(c.body.endedAt)).toBeGreaterThan(0);
      const e = await events(r.body.id);
      expect(e.body.data.map((x: { type: string }) => x.type)).toEqual(['run.queued', 'run.cancelled']);
      expect(e.body.data[1].data).toEqual({ stopReason: 'cancelled' });
      const again = await p.json<Record<string, any>>('POST', `/api/v1/agents/runs/${r.body.id}/cancel`, { key: keys.user });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('RUN_FINISHED');
    });

    test('a DISABLED agent refuses runs (409 AGENT_DISABLED); a PAUSED one queues them', async () => {
      const a = (await p.json<{ id: string }>('POST', '/api/v1/agents', { key: keys.author, body: { name: 'sleepy', status: 'PAUSED' } })).body.id;
      expect((await start(keys.user, {}, a)).body.status).toBe('queued');
      await p.json('PATCH', `/api/v1/agents/${a}`, { key: keys.author, body: { status: 'DISABLED' } });
      const r = await start(keys.user, {}, a);
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('AGENT_DISABLED');
    });

    test('child runs share the root; a bad parent → 422', async () => {
      const root = await start();
      const child = await start(keys.user, { parentRunId: root.body.id });
      expect(child.body).toMatchObject({ parentRunId: root.body.id, rootRunId: root.body.id });
      expect((await start(keys.user, { parentRunId: crypto.randomUUID() })).status).toBe(422);
      expect((await start(keys.user, { bogus: 1 })).status).toBe(422);
    });

    test("child runs obey the parent's agent's maxChildRuns (the lower of config and policy), also when started together", async () => {
      const capped = (await p.json<{ id: string }>('POST', '/api/v1/agents', { key: keys.author, body: { name: 'capped', status: 'PAUSED', config: { maxChildRuns: 5 }, policy: { maxChildRuns: 3 } } })).body.id;
      const root = await start(keys.user, {}, capped);
      // Children go to any agent of the workspace; the parent's agent sets the limit.
      const results = await Promise.all(Array.from({ length: 6 }, () => start(keys.user, { parentRunId: root.body.id })));
      expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 409, 409, 409]);
      const refused = results.find((r) => r.status === 409)!;
      expect(refused.body).toMatchObject({ code: 'MAX_CHILD_RUNS', maxChildRuns: 3 });
      const tree = await p.json<{ data: { id: string }[] }>('GET', `/api/v1/agents/runs/${root.body.id}/events?cte=${encodeURIComponent(JSON.stringify({ kids: { from: 'runs', filter: { field: 'parentRunId', op: 'eq', value: root.body.id }, fields: ['id'] } }))}&joins=${encodeURIComponent(JSON.stringify([{ table: 'kids', alias: 'k', type: 'inner', on: { left: 'rootRunId', op: 'ne', right: 'k.id' } }]))}&fields=k.id`, { key: keys.user });
      expect(tree.status).toBe(200);
      expect(tree.body.data).toHaveLength(3);
      // A child of a child counts towards its own parent, not the root.
      const grandchild = await start(keys.user, { parentRunId: results.find((r) => r.status === 201)!.body.id });
      expect(grandchild.status).toBe(201);
      // No limit set: the default, 128.
      const free = await start();
      for (let i = 0; i < 4; i++) expect((await start(keys.user, { parentRunId: free.body.id })).status).toBe(201);
    });

    test('cancelling a run cancels its unfinished descendants (parent_cancelled), not its ancestors or siblings', async () => {
      const root = await start();
      const child = await start(keys.user, { parentRunId: root.body.id });
      const sibling = await start(keys.user, { parentRunId: root.body.id });
      const grandchild = await start(keys.user, { parentRunId: child.body.id });
      const done = await start(keys.user, { parentRunId: child.body.id });
      await p.json('POST', `/api/v1/agents/runs/${done.body.id}/cancel`, { key: keys.user });
      const c = await p.json<Record<string, any>>('POST', `/api/v1/agents/runs/${child.body.id}/cancel`, { key: keys.user });
      expect(c.body).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
      const status = async (id: string) => (await p.json<Record<string, any>>('GET', `/api/v1/agents/runs/${id}`, { key: keys.user })).body;
      expect(await status(grandchild.body.id)).toMatchObject({ status: 'cancelled', stopReason: 'parent_cancelled' });
      expect(await status(done.body.id)).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
      expect((await status(root.body.id)).status).toBe('queued');
      expect((await status(sibling.body.id)).status).toBe('queued');
      const e = await events(grandchild.body.id);
      expect(e.body.data.map((x: { type: string; data: unknown }) => [x.type, x.data])).toEqual([
        ['run.queued', { createdBy: expect.any(String) }],
        ['run.cancelled', { stopReason: 'parent_cancelled' }],
      ]);
      // The finished child's events are untouched: one cancellation only.
      expect((await events(done.body.id)).body.data.map((x: { type: string }) => x.type)).toEqual(['run.queued', 'run.cancelled']);
    });

    test('a finished or cancelling parent starts no more child runs (409 RUN_FINISHED)', async () => {
      const root = await start();
      await p.json('POST', `/api/v1/agents/runs/${root.body.id}/cancel`, { key: keys.user });
      const r = await start(keys.user, { parentRunId: root.body.id });
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('RUN_FINISHED');
    });

    test('access goes through the agent: another workspace or a malformed id → 404; no agent role → 403', async () => {
      const r = await start();
      expect((await p.json('GET', `/api/v1/agents/runs/${r.body.id}`, { key: keys.stranger })).status).toBe(404);
      expect((await events(r.body.id, '', keys.stranger)).status).toBe(404);
      expect((await events('not-a-uuid')).status).toBe(404);
      expect((await events(crypto.randomUUID())).status).toBe(404);
      expect((await events(r.body.id, '', keys.endpointsOnly)).status).toBe(403);
      expect((await start(keys.endpointsOnly)).status).toBe(403);
    });

    test("an AGENT_USER cancels the runs it started, not a colleague's (403, the run unchanged); AGENT_ADMIN cancels any", async () => {
      const mine = await start(keys.colleague);
      const theirs = await start();
      const refused = await p.json<Record<string, any>>('POST', `/api/v1/agents/runs/${theirs.body.id}/cancel`, { key: keys.colleague });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('FORBIDDEN');
      expect((await p.json<Record<string, any>>('GET', `/api/v1/agents/runs/${theirs.body.id}`, { key: keys.user })).body).toEqual(theirs.body);
      expect((await events(theirs.body.id)).body.data.map((x: { type: string }) => x.type)).toEqual(['run.queued']);
      expect((await p.json<Record<string, any>>('POST', `/api/v1/agents/runs/${mine.body.id}/cancel`, { key: keys.colleague })).body.status).toBe('cancelled');
      const byAdmin = await p.json<Record<string, any>>('POST', `/api/v1/agents/runs/${theirs.body.id}/cancel`, { key: keys.author });
      expect(byAdmin.status).toBe(202);
      expect(byAdmin.body.status).toBe('cancelled');
      expect((await p.json('POST', `/api/v1/agents/runs/${theirs.body.id}/cancel`, { key: keys.endpointsOnly })).status).toBe(403);
    });

    test('an owner without agent roles reads no run of another agent: not as a parent, not through a join', async () => {
      // endpointsOnly owns an agent of its own (created for it by the author) but holds no agent role.
      const me = (await p.json<{ id: string }>('GET', '/api/v1/me', { key: keys.endpointsOnly })).body.id;
      const own = (await p.json<{ id: string }>('POST', '/api/v1/agents', { key: keys.author, body: { name: 'owned', ownerType: 'USER', ownerId: me } })).body.id;
      const secret = await start(keys.user, { input: { q: 'not yours' } });
      expect((await p.json('GET', `/api/v1/agents/runs/${secret.body.id}`, { key: keys.endpointsOnly })).status).toBe(403);
      const attached = await start(keys.endpointsOnly, { parentRunId: secret.body.id }, own);
      expect(attached.status).toBe(422);
      expect(attached.body.errors).toEqual([{ pointer: '/parentRunId', message: 'No visible run with this id' }]);

      // A reader of both agents builds the tree; the owner's events may join only its own agent's runs.
      const child = await start(keys.author, { parentRunId: secret.body.id }, own);
      expect(child.status).toBe(201);
      const joins = encodeURIComponent(JSON.stringify([{ table: 'runs', alias: 'r', type: 'inner', on: { left: 'rootRunId', op: 'eq', right: 'r.rootRunId' } }]));
      const seen = await events(child.body.id, `?joins=${joins}&fields=seq,r.id,r.input`, keys.endpointsOnly);
      expect(seen.status).toBe(200);
      expect(seen.body.data).toEqual([{ seq: 1, 'r.id': child.body.id, 'r.input': null }]);
      // A reader of the whole tree sees both runs.
      const all = await events(child.body.id, `?joins=${joins}&fields=r.id&sort=r.createdAt`, keys.user);
      expect(all.body.data.map((e: Record<string, string>) => e['r.id']).sort()).toEqual([child.body.id, secret.body.id].sort());
    });
  });

  describe('events list', () => {
    let runId: string;
    beforeAll(async () => {
      runId = (await start()).body.id;
      const batch = Array.from({ length: 250 }, (_, i) => ({
        type: i % 5 === 0 ? 'tool_call.completed' : i % 5 === 1 ? 'message.created' : 'tick.completed',
        actor: i % 2 === 0 ? 'agent' : 'tool',
        tickIndex: Math.floor(i / 10),
        data: { toolName: i % 5 === 0 ? `tool${i % 3}` : null, n: i, tags: [`t${i % 4}`] },
      }));
      await p.runs.appendMany(runId, batch);
    });

    test('seq is dense and increasing; default sort seq ASC; limit/offset/hasMore/count', async () => {
      const first = await events(runId, '?limit=100&count=true');
      expect(first.body.meta).toEqual({ offset: 0, limit: 100, hasMore: true, count: 251 });
      expect(first.body.data.map((e: { seq: number }) => e.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      const last = await events(runId, '?offset=200&limit=100');
      expect(last.body.meta.hasMore).toBe(false);
      expect(last.body.data).toHaveLength(51);
    });

    test('filter in JSON and bracket form, sort, fields, JSON paths', async () => {
      const json = encodeURIComponent(JSON.stringify({ and: [{ field: 'type', op: 'eq', value: 'tool_call.completed' }, { field: 'data.toolName', op: 'eq', value: 'tool1' }] }));
      const a = await events(runId, `?filter=${json}&sort=-seq&fields=seq,type,data.toolName`);
      const b = await events(runId, '?filter[and][0][field]=type&filter[and][0][op]=eq&filter[and][0][value]=tool_call.completed&filter[and][1][field]=data.toolName&filter[and][1][op]=eq&filter[and][1][value]=tool1&sort[0]=-seq&fields[0]=seq&fields[1]=type&fields[2]=data.toolName');
      expect(a.status).toBe(200);
      expect(a.body).toEqual(b.body);
      expect(a.body.data.length).toBeGreaterThan(0);
      const seqs = a.body.data.map((e: { seq: number }) => e.seq);
      expect(seqs).toEqual([...seqs].sort((x: number, y: number) => y - x));
      expect(Object.keys(a.body.data[0]).sort()).toEqual(['data.toolName', 'seq', 'type']);
    });

    test('groupBy with count, relation field run.status', async () => {
      const g = await events(runId, `?groupBy=type&fields=${encodeURIComponent(JSON.stringify(['type', { fn: 'count', args: ['*'], as: 'n' }]))}&sort=type`);
      expect(g.status).toBe(200);
      const counts = Object.fromEntries(g.body.data.map((r: { type: string; n: number }) => [r.type, r.n]));
      expect(counts).toEqual({ 'message.created': 50, 'run.queued': 1, 'tick.completed': 150, 'tool_call.completed': 50 });
      const rel = await events(runId, `?filter=${encodeURIComponent(JSON.stringify({ field: 'run.status', op: 'eq', value: 'queued' }))}&limit=1&count=true`);
      expect(rel.body.meta.count).toBe(251);
    });

    test('bad parameters → 400 with a pointer into /query; unknown fields named', async () => {
      const r = await events(runId, '?limit=10001');
      expect(r.status).toBe(400);
      expect(r.body.errors[0].pointer).toStartWith('/query/limit');
      const f = await events(runId, `?filter=${encodeURIComponent(JSON.stringify({ field: 'nope', op: 'eq', value: 1 }))}`);
      expect(f.status).toBe(400);
      expect(JSON.stringify(f.body)).toContain('nope');
      expect((await events(runId, '?filter={bad')).status).toBe(400);
      // A parameter that does not parse does not hide what is wrong with the others: one 400 names all.
      const all = await events(runId, `?limit=-1&sort=nope&fields=bad,seq&filter=${encodeURIComponent(JSON.stringify({ field: 'x', op: 'eq', value: 1 }))}`);
      expect(all.status).toBe(400);
      const pointers: string[] = all.body.errors.map((e: { pointer: string }) => e.pointer);
      expect(pointers.some((x) => x.startsWith('/query/limit'))).toBe(true);
      expect(pointers.some((x) => x.startsWith('/query/sort'))).toBe(true);
      expect(pointers.some((x) => x.startsWith('/query/fields'))).toBe(true);
      expect(pointers.some((x) => x.startsWith('/query/filter'))).toBe(true);
    });

    test('debug: INSTANCE_ADMIN gets SQL, params and a plan; others 403 DEBUG_FORBIDDEN', async () => {
      const d = await p.json<Record<string, any>>('GET', `/api/v1/agents/runs/${runId}/events?debug=true&limit=1`);
      expect(d.status).toBe(200);
      expect(typeof d.body.debug.sql).toBe('string');
      expect(Array.isArray(d.body.debug.params)).toBe(true);
      expect(d.body.debug.plan).toBeDefined();
      const denied = await events(runId, '?debug=true');
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('DEBUG_FORBIDDEN');
      // A query that does not parse is a 400 first, debug or not.
      const malformed = await events(runId, '?debug=true&filter={bad');
      expect(malformed.status).toBe(400);
      expect(malformed.body.code).toBe('INVALID_QUERY');
    });

    test('events of other runs never leak, whatever the filter', async () => {
      const other = (await start()).body.id;
      const anyRun = encodeURIComponent(JSON.stringify({ or: [{ field: 'runId', op: 'eq', value: runId }, { field: 'runId', op: 'ne', value: runId }] }));
      const r = await events(other, `?filter=${anyRun}&count=true`);
      expect(r.body.meta.count).toBe(1);
      expect(r.body.data.every((e: { runId: string }) => e.runId === other)).toBe(true);
    });

    test('concurrent appends to one run get distinct consecutive seq numbers', async () => {
      const id = (await start()).body.id;
      await Promise.all(Array.from({ length: 30 }, (_, i) => p.runs.appendMany(id, [{ type: 'tick.started', actor: 'agent', tickIndex: i }])));
      const r = await events(id, '?limit=1000');
      expect(r.body.data.map((e: { seq: number }) => e.seq)).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    });
  });

  describe('agents list uses the engine', () => {
    test('filter, sort, fields and workspace scope', async () => {
      await p.json('POST', '/api/v1/agents', { key: keys.author, body: { name: 'zeta', metadata: { team: 'red' } } });
      const r = await p.json<Record<string, any>>('GET', `/api/v1/agents?filter=${encodeURIComponent(JSON.stringify({ field: 'metadata.team', op: 'eq', value: 'red' }))}&fields=name,status`, { key: keys.user });
      expect(r.status).toBe(200);
      expect(r.body.data).toEqual([{ name: 'zeta', status: 'ACTIVE' }]);
      const none = await p.json<Record<string, any>>('GET', '/api/v1/agents?count=true', { key: keys.stranger });
      expect(none.body.meta.count).toBe(0);
    });
  });
});
