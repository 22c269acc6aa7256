// The run engine through the API (DESIGN §5), on both databases: scripted runs play every step,
// the scheduler's limits, children and their failure modes, cancel, pause and disable, memory,
// idempotent starts and the events they all leave.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { databaseCases, dropPostgresSchema } from '../helpers/databases.ts';

type Run = Record<string, any>;
type Event = { seq: number; type: string; tickIndex: number | null; actor: string; data: any };

for (const database of databaseCases()) describe(`on ${database.name}`, () => {
  let p: TestPlatform;
  const keys: Record<string, string> = {};

  async function principal(name: string, roles: string[]) {
    const u = await p.json<{ id: string }>('POST', '/api/v1/users', { body: { name, email: `${name}@example.com`, roles, platformAccess: true } });
    keys[name] = (await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: u.body.id, name } })).body.key;
    return u.body.id;
  }

  beforeAll(async () => {
    p = await startTestPlatform(database.env, { postgresSchema: database.postgresSchema });
    await principal('author', ['AGENT_ADMIN']);
    await principal('user', ['AGENT_USER']);
    await principal('other', ['AGENT_USER']);
  });
  afterAll(async () => {
    await p.close();
    await dropPostgresSchema(database.postgresSchema);
  });

  let agents = 0;
  const agent = async (body: Record<string, unknown> = {}) =>
    (await p.json<{ id: string; version: number }>('POST', '/api/v1/agents', { key: keys.author, body: { name: `agent-${++agents}`, ...body } })).body.id;
  const start = (agentId: string, body: unknown, key = keys.user, headers: Record<string, string> = {}) => p.json<Run>('POST', `/api/v1/agents/${agentId}/runs`, { key, body, headers });
  const get = async (runId: string) => (await p.json<Run>('GET', `/api/v1/agents/runs/${runId}`, { key: keys.user })).body;
  const events = async (runId: string): Promise<Event[]> => (await p.json<{ data: Event[] }>('GET', `/api/v1/agents/runs/${runId}/events?limit=10000`, { key: keys.user })).body.data;
  const types = async (runId: string) => (await events(runId)).map((e) => e.type);
  const patch = (agentId: string, body: unknown) => p.json<Run>('PATCH', `/api/v1/agents/${agentId}`, { key: keys.author, body });

  async function until(runId: string, done: (run: Run) => boolean, ms = 8000): Promise<Run> {
    const deadline = Date.now() + ms;
    for (;;) {
      const run = await get(runId);
      if (done(run)) return run;
      if (Date.now() > deadline) throw new Error(`run ${runId} is ${run.status} after ${ms} ms`);
      await Bun.sleep(20);
    }
  }
  const FINAL = ['completed', 'failed', 'cancelled', 'timed_out'];
  const ended = (runId: string, ms?: number) => until(runId, (r) => FINAL.includes(r.status), ms);

  describe('the scripted model', () => {
    test('plays every step; events in order with ticks, usage and the context; output and usage on the run', async () => {
      const a = await agent({ config: { definition: { identity: 'tester', mission: 'check' }, persona: 'calm', systemInstructions: 'Be brief.' } });
      const r = await start(a, { input: { script: [{ say: 'hello' }, { echoContext: true }, { finish: { answer: 42 } }] } });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ status: 'queued', mode: 'execute', output: null, error: null, tickCount: 0, usage: { ticks: 0, toolCalls: 0, promptTokens: 0, completionTokens: 0 } });
      const run = await ended(r.body.id);
      expect(run).toMatchObject({ status: 'completed', stopReason: 'completed', output: { answer: 42 }, tickCount: 3, queuePosition: null });
      const list = await events(run.id);
      expect(list.map((e) => e.type)).toEqual([
        'run.queued', 'run.started',
        'tick.started', 'message.created', 'usage.reported', 'tick.completed',
        'tick.started', 'message.created', 'usage.reported', 'tick.completed',
        'tick.started', 'usage.reported', 'tick.completed',
        'memory.stored', 'run.completed',
      ]);
      expect(list.map((e) => e.seq)).toEqual(list.map((_, i) => i + 1));
      expect(list.filter((e) => e.type.startsWith('tick.')).map((e) => e.tickIndex)).toEqual([0, 0, 1, 1, 2, 2]);
      expect(list[0]!.tickIndex).toBeNull();
      const said = list.find((e) => e.type === 'message.created')!;
      expect(said).toMatchObject({ actor: 'agent', tickIndex: 0, data: { role: 'assistant', text: 'hello' } });
      const started = list.find((e) => e.type === 'tick.started')!;
      expect(started.actor).toBe('system');
      expect(started.data.context.sections).toEqual(['policy', 'definition', 'persona', 'systemInstructions', 'conversation']);
      const echoed = list.filter((e) => e.type === 'message.created')[1]!;
      const sections = echoed.data.context as { section: string; text: string }[];
      expect(sections.map((s) => s.section)).toEqual(started.data.context.sections);
      expect(sections.find((s) => s.section === 'definition')!.text).toContain('Identity: tester');
      expect(sections.find((s) => s.section === 'conversation')!.text).toContain('assistant: hello');
      // scripted tokens: ⌈prompt characters / 4⌉ and ⌈step JSON / 4⌉, summed on the run.
      const usage = list.filter((e) => e.type === 'usage.reported').map((e) => e.data);
      const ticks = list.filter((e) => e.type === 'tick.started').map((e) => e.data.context.promptChars);
      expect(usage.map((u) => u.promptTokens)).toEqual(ticks.map((c) => Math.ceil(c / 4)));
      expect(usage.map((u) => u.completionTokens)).toEqual([
        Math.ceil(JSON.stringify({ say: 'hello' }).length / 4),
        Math.ceil(JSON.stringify({ echoContext: true }).length / 4),
        Math.ceil(JSON.stringify({ finish: { answer: 42 } }).length / 4),
      ]);
      expect(run.usage).toEqual({
        ticks: 3,
        toolCalls: 0,
        promptTokens: usage.reduce((n, u) => n + u.promptTokens, 0),
        completionTokens: usage.reduce((n, u) => n + u.completionTokens, 0),
      });
      expect(list.at(-1)).toMatchObject({ type: 'run.completed', actor: 'system', data: { stopReason: 'completed' } });
    });

    test('a run without a script says its input; a script without finish completes with output null', async () => {
      const a = await agent();
      const plain = await ended((await start(a, { input: { q: 'hi' } })).body.id);
      expect(plain).toMatchObject({ status: 'completed', output: null, tickCount: 1 });
      expect((await events(plain.id)).find((e) => e.type === 'message.created')!.data.text).toBe('{"q":"hi"}');
      const noFinish = await ended((await start(a, { input: { script: [{ say: 'a' }] } })).body.id);
      expect(noFinish).toMatchObject({ status: 'completed', output: null, tickCount: 1 });
    });

    test('fail ends the run failed with model_error and the message', async () => {
      const run = await ended((await start(await agent(), { input: { script: [{ say: 'x' }, { fail: 'no luck' }, { say: 'never' }] } })).body.id);
      expect(run).toMatchObject({ status: 'failed', stopReason: 'model_error', error: 'no luck', tickCount: 2 });
      expect((await types(run.id)).at(-1)).toBe('run.failed');
    });

    test('a tool call with no tool of that name fails UNKNOWN_TOOL, the model sees it and the run goes on', async () => {
      const run = await ended((await start(await agent(), { input: { script: [{ tools: [{ name: 'nope', args: { a: 1 } }] }, { finish: 'done' }] } })).body.id);
      expect(run).toMatchObject({ status: 'completed', output: 'done', usage: { toolCalls: 1 } });
      const list = await events(run.id);
      const requested = list.find((e) => e.type === 'tool_call.requested')!;
      const failed = list.find((e) => e.type === 'tool_call.failed')!;
      expect(requested.data).toMatchObject({ name: 'nope', args: { a: 1 } });
      expect(failed.data).toMatchObject({ toolCallId: requested.data.toolCallId, code: 'UNKNOWN_TOOL' });
    });

    test('a malformed script is 422 at its pointer and creates nothing', async () => {
      const a = await agent();
      const cases: [unknown, string][] = [
        [{ script: 'x' }, '/input/script'],
        [{ script: [{ say: 'a' }, { say: 'b' }, { sleep: 60001 }] }, '/input/script/2/sleep'],
        [{ script: [{ sleep: 1.5 }] }, '/input/script/0/sleep'],
        [{ script: [{ dance: true }] }, '/input/script/0/dance'],
        [{ script: [{ say: 'a', finish: 1 }] }, '/input/script/0'],
        [{ script: [{ echoContext: false }] }, '/input/script/0/echoContext'],
        [{ script: [{ tools: [{ args: {} }] }] }, '/input/script/0/tools/0/name'],
        [{ script: [{ delegate: [{ input: { script: [{ fail: 3 }] } }] }] }, '/input/script/0/delegate/0/input/script/0/fail'],
      ];
      for (const [input, pointer] of cases) {
        const r = await start(a, { input });
        expect(r.status).toBe(422);
        expect(r.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
      }
      expect((await p.json<{ data: unknown[] }>('GET', `/api/v1/agents/${a}/runs`, { key: keys.user })).body.data).toHaveLength(0);
    });

    test('mode defaults to config.executionMode, else execute; it is stored and in the context', async () => {
      const a = await agent({ config: { executionMode: 'background' } });
      const run = await ended((await start(a, { input: { script: [{ echoContext: true }] } })).body.id);
      expect(run.mode).toBe('background');
      const other = await ended((await start(a, { mode: 'automation', input: { script: [{ echoContext: true }] } })).body.id);
      expect(other.mode).toBe('automation');
      const echoed = (await events(other.id)).find((e) => e.type === 'message.created')!;
      expect(echoed.data.context.at(-1).text).toContain('mode: automation');
      expect((await start(a, { mode: 'sideways' })).status).toBe(422);
      expect((await start(a, { approvalTimeoutMs: 999 })).status).toBe(422);
    });
  });

  describe('scheduling', () => {
    test('maxActiveRootRuns (default 1): the rest stay queued with their place, and start in creation order', async () => {
      // Made while the agent is PAUSED, so that all three are queued when their places are read.
      const a = await agent({ status: 'PAUSED' });
      const runs = [];
      for (let i = 0; i < 3; i++) runs.push((await start(a, { input: { script: [{ sleep: 150 }] } })).body);
      expect(runs.map((r) => r.queuePosition)).toEqual([1, 2, 3]);
      expect((await Promise.all(runs.map((r) => get(r.id)))).map((r) => [r.status, r.queuePosition])).toEqual([['queued', 1], ['queued', 2], ['queued', 3]]);
      expect((await patch(a, { status: 'ACTIVE' })).status).toBe(200);
      const done = await Promise.all(runs.map((r) => ended(r.id)));
      const starts = done.map((r) => Date.parse(r.startedAt));
      expect([...starts].sort((x, y) => x - y)).toEqual(starts);
      for (let i = 1; i < done.length; i++) expect(Date.parse(done[i]!.startedAt)).toBeGreaterThanOrEqual(Date.parse(done[i - 1]!.endedAt));
    });

    test('the lower of config and policy: maxActiveRootRuns 2 (policy 2 of config 3) runs two at once', async () => {
      const a = await agent({ config: { maxActiveRootRuns: 3 }, policy: { maxActiveRootRuns: 2 } });
      const runs: Run[] = [];
      for (let i = 0; i < 3; i++) runs.push((await start(a, { input: { script: [{ sleep: 2000 }] } })).body);
      await until(runs[1]!.id, (r) => r.status === 'running');
      expect((await get(runs[0]!.id)).status).toBe('running');
      expect((await get(runs[2]!.id)).status).toBe('queued');
      await Promise.all(runs.map((r) => ended(r.id)));
    });

    test('maxTicks: a run that would start tick maxTicks + 1 ends timed_out; a script of exactly maxTicks steps completes', async () => {
      const a = await agent({ config: { maxTicks: 5 }, policy: { maxTicks: 2 } });
      const over = await ended((await start(a, { input: { script: [{ say: '1' }, { say: '2' }, { say: '3' }] } })).body.id);
      expect(over).toMatchObject({ status: 'timed_out', stopReason: 'max_ticks', tickCount: 2 });
      expect((await types(over.id)).at(-1)).toBe('run.timed_out');
      const exact = await ended((await start(a, { input: { script: [{ say: '1' }, { say: '2' }] } })).body.id);
      expect(exact).toMatchObject({ status: 'completed', tickCount: 2 });
    });
  });

  describe('children', () => {
    const child = (script: unknown[]) => ({ input: { script } });

    test('delegate spawns children of the same agent; the next tick waits for them; at most maxConcurrentChildRuns run at once', async () => {
      const a = await agent({ config: { maxConcurrentChildRuns: 1 } });
      const run = await ended((await start(a, { input: { script: [{ delegate: [child([{ sleep: 100 }, { finish: 1 }]), child([{ finish: 2 }]), child([{ sleep: 50 }, { finish: 3 }])] }, { say: 'after' }, { finish: 'all' }] } })).body.id, 15000);
      expect(run).toMatchObject({ status: 'completed', output: 'all' });
      const list = await events(run.id);
      const spawned = list.filter((e) => e.type === 'child_run.spawned');
      expect(spawned).toHaveLength(3);
      expect(spawned[0]).toMatchObject({ actor: 'agent', tickIndex: 0, data: { status: 'queued' } });
      const completed = list.filter((e) => e.type === 'child_run.completed');
      expect(completed.map((e) => e.data.status)).toEqual(['completed', 'completed', 'completed']);
      // Every child outcome is recorded before the next tick starts.
      const secondTick = list.findIndex((e) => e.type === 'tick.started' && e.tickIndex === 1);
      expect(list.findLastIndex((e) => e.type === 'child_run.completed')).toBeLessThan(secondTick);
      const children = await Promise.all(spawned.map((e) => get(e.data.childRunId)));
      expect(children.map((c) => c.output)).toEqual([1, 2, 3]);
      expect(children.every((c) => c.parentRunId === run.id && c.rootRunId === run.id)).toBe(true);
      const spans = children.map((c) => [Date.parse(c.startedAt), Date.parse(c.endedAt)] as const).sort((x, y) => x[0] - y[0]);
      for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
      // Only root runs store memory.
      expect(await types(children[0]!.id)).not.toContain('memory.stored');
    });

    test('fail_parent (default): a failed child cancels its unfinished siblings and fails the parent', async () => {
      const a = await agent({ config: { maxConcurrentChildRuns: 2 } });
      const run = await ended((await start(a, { input: { script: [{ delegate: [child([{ sleep: 5000 }]), child([{ fail: 'broken' }])] }, { finish: 'never' }] } })).body.id);
      expect(run).toMatchObject({ status: 'failed', stopReason: 'child_failed' });
      const list = await events(run.id);
      const [sleeper, failing] = list.filter((e) => e.type === 'child_run.spawned').map((e) => e.data.childRunId);
      expect(list.find((e) => e.type === 'child_run.failed')!.data).toMatchObject({ childRunId: failing, status: 'failed' });
      expect(await ended(sleeper)).toMatchObject({ status: 'cancelled', stopReason: 'parent_cancelled' });
    });

    test('merge_partial: the parent goes on with the results that exist', async () => {
      const a = await agent({ policy: { childFailureMode: 'merge_partial' }, config: { childFailureMode: 'fail_parent' } });
      const run = await ended((await start(a, { input: { script: [{ delegate: [child([{ fail: 'broken' }]), child([{ finish: 'fine' }])] }, { echoContext: true }, { finish: 'merged' }] } })).body.id);
      expect(run).toMatchObject({ status: 'completed', output: 'merged' });
      const list = await events(run.id);
      expect(list.filter((e) => e.type.startsWith('child_run.')).map((e) => e.type).sort()).toEqual(['child_run.completed', 'child_run.failed', 'child_run.spawned', 'child_run.spawned']);
      const conversation = list.filter((e) => e.type === 'message.created').at(-1)!.data.context.at(-1).text as string;
      expect(conversation).toContain('"output":"fine"');
    });

    test('children beyond maxChildRuns: an error event MAX_CHILD_RUNS and the parent goes on', async () => {
      const a = await agent({ config: { maxChildRuns: 1 } });
      const run = await ended((await start(a, { input: { script: [{ delegate: [child([{ finish: 1 }]), child([{ finish: 2 }])] }, { finish: 'ok' }] } })).body.id);
      expect(run).toMatchObject({ status: 'completed', output: 'ok' });
      const list = await events(run.id);
      expect(list.filter((e) => e.type === 'child_run.spawned')).toHaveLength(1);
      expect(list.find((e) => e.type === 'error')!.data).toMatchObject({ code: 'MAX_CHILD_RUNS' });
    });
  });

  describe('cancel, pause, disable', () => {
    test('cancelling a running run aborts its tick: cancelled within 2 s, with its children', async () => {
      const a = await agent();
      const r = (await start(a, { input: { script: [{ delegate: [{ input: { script: [{ sleep: 60000 }] } }] }] } })).body;
      const list = async () => (await events(r.id)).filter((e) => e.type === 'child_run.spawned');
      let spawned: Event[] = [];
      for (let i = 0; i < 200 && spawned.length === 0; i++, await Bun.sleep(20)) spawned = await list();
      const childId = spawned[0]!.data.childRunId;
      await until(childId, (c) => c.status === 'running');
      const asked = Date.now();
      const c = await p.json<Run>('POST', `/api/v1/agents/runs/${r.id}/cancel`, { key: keys.user });
      expect(c.status).toBe(202);
      expect(c.body.status).toBe('cancelling');
      const done = await ended(r.id, 4000);
      expect(Date.now() - asked).toBeLessThan(2500);
      expect(done).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
      expect(await ended(childId, 4000)).toMatchObject({ status: 'cancelled', stopReason: 'parent_cancelled' });
      const t = await types(r.id);
      expect(t.slice(-2)).toEqual(['run.cancelling', 'run.cancelled']);
      const again = await p.json<Run>('POST', `/api/v1/agents/runs/${r.id}/cancel`, { key: keys.user });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('RUN_FINISHED');
    });

    test('a sleeping tick is interrupted by cancel', async () => {
      const r = (await start(await agent(), { input: { script: [{ sleep: 60000 }] } })).body;
      await until(r.id, (x) => x.status === 'running');
      await Bun.sleep(50);
      const asked = Date.now();
      await p.json('POST', `/api/v1/agents/runs/${r.id}/cancel`, { key: keys.user });
      expect(await ended(r.id, 4000)).toMatchObject({ status: 'cancelled' });
      expect(Date.now() - asked).toBeLessThan(2500);
      expect(await types(r.id)).not.toContain('tick.completed');
    });

    test('PAUSED: the running run ends its tick, emits run.paused and waits; ACTIVE again: run.resumed and it goes on', async () => {
      const a = await agent();
      const r = (await start(a, { input: { script: [{ sleep: 300 }, { say: 'second' }, { finish: 'end' }] } })).body;
      for (let i = 0; i < 200 && !(await types(r.id)).includes('tick.started'); i++) await Bun.sleep(10);
      expect((await patch(a, { status: 'PAUSED' })).status).toBe(200);
      let t: string[] = [];
      for (let i = 0; i < 200 && !t.includes('run.paused'); i++, await Bun.sleep(20)) t = await types(r.id);
      expect(t).toContain('run.paused');
      await Bun.sleep(300);
      const paused = await get(r.id);
      expect(paused).toMatchObject({ status: 'running', tickCount: 1 });
      // A run started meanwhile stays queued.
      const queued = (await start(a, { input: { script: [{ finish: 2 }] } })).body;
      expect((await get(queued.id)).status).toBe('queued');
      expect((await patch(a, { status: 'ACTIVE' })).status).toBe(200);
      expect(await ended(r.id)).toMatchObject({ status: 'completed', output: 'end' });
      const after = await types(r.id);
      expect(after.indexOf('run.resumed')).toBeGreaterThan(after.indexOf('run.paused'));
      expect(after.indexOf('tick.started', after.indexOf('run.resumed'))).toBeGreaterThan(0);
      expect(await ended(queued.id)).toMatchObject({ status: 'completed', output: 2 });
    });

    test('DISABLED: queued and running runs are cancelled with agent_disabled within 2 s; new runs 409', async () => {
      const a = await agent();
      const running = (await start(a, { input: { script: [{ sleep: 60000 }] } })).body;
      const queued = (await start(a, { input: { script: [{ finish: 1 }] } })).body;
      await until(running.id, (x) => x.status === 'running');
      const asked = Date.now();
      expect((await patch(a, { status: 'DISABLED' })).status).toBe(200);
      expect(await ended(running.id, 4000)).toMatchObject({ status: 'cancelled', stopReason: 'agent_disabled' });
      expect(await ended(queued.id, 4000)).toMatchObject({ status: 'cancelled', stopReason: 'agent_disabled' });
      expect(Date.now() - asked).toBeLessThan(2500);
      expect(await types(running.id)).toContain('run.cancelling');
      const refused = await start(a, {});
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('AGENT_DISABLED');
    });
  });

  describe('memory', () => {
    test('completed root runs store their output; ticks recall the newest within the budgets; list and delete', async () => {
      const a = await agent({ config: { memoryPolicy: { maxRecallEntries: 2, maxRecallChars: 200 } } });
      for (const value of ['first', 'second', 'third']) await ended((await start(a, { input: { script: [{ finish: value }] } })).body.id);
      const memory = await p.json<{ data: { id: string; summary: string; runId: string; agentId: string }[] }>('GET', `/api/v1/agents/${a}/memory`, { key: keys.user });
      expect(memory.status).toBe(200);
      expect(memory.body.data.map((m) => m.summary).sort()).toEqual(['"first"', '"second"', '"third"']);
      const run = await ended((await start(a, { input: { script: [{ echoContext: true }] } })).body.id);
      const list = await events(run.id);
      const tick = list.find((e) => e.type === 'tick.started')!;
      expect(tick.data.context.memory).toEqual({ entries: 2, chars: '"third"'.length + '"second"'.length });
      const text = (list.find((e) => e.type === 'message.created')!.data.context as { section: string; text: string }[]).find((s) => s.section === 'memory')!.text;
      expect(text).toContain('"third"');
      expect(text).not.toContain('"first"');
      // The record that would pass the character budget and all older ones are left out.
      const tight = await agent({ config: { memoryPolicy: { maxRecallChars: 128 } } });
      await ended((await start(tight, { input: { script: [{ finish: 'x'.repeat(100) }] } })).body.id);
      await ended((await start(tight, { input: { script: [{ finish: 'y'.repeat(100) }] } })).body.id);
      const recalled = (await events((await ended((await start(tight, { input: { script: [{ say: '-' }] } })).body.id)).id)).find((e) => e.type === 'tick.started')!;
      expect(recalled.data.context.memory.entries).toBe(1);
      // Delete: the owner and AGENT_ADMIN; an AGENT_USER reads only.
      const victim = memory.body.data[0]!.id;
      expect((await p.call('DELETE', `/api/v1/agents/${a}/memory/${victim}`, { key: keys.user })).status).toBe(403);
      expect((await p.call('DELETE', `/api/v1/agents/${a}/memory/${victim}`, { key: keys.author })).status).toBe(204);
      expect((await p.call('DELETE', `/api/v1/agents/${a}/memory/${victim}`, { key: keys.author })).status).toBe(404);
      expect((await p.json<{ data: unknown[] }>('GET', `/api/v1/agents/${a}/memory`, { key: keys.user })).body.data).toHaveLength(3);
    });

    test('enabled: false neither loads nor stores', async () => {
      const a = await agent({ config: { memoryPolicy: { enabled: false } } });
      const run = await ended((await start(a, { input: { script: [{ finish: 'x' }] } })).body.id);
      expect(await types(run.id)).not.toContain('memory.stored');
      expect((await p.json<{ data: unknown[] }>('GET', `/api/v1/agents/${a}/memory`, { key: keys.user })).body.data).toHaveLength(0);
      const tick = (await events(run.id)).find((e) => e.type === 'tick.started')!;
      expect(tick.data.context.sections).not.toContain('memory');
    });
  });

  describe('idempotent starts', () => {
    test('a repeat within 24 h answers 200 with the run as it is now; another body 409; another principal a new run', async () => {
      const a = await agent({ status: 'PAUSED' });
      const headers = { 'idempotency-key': 'order-42' };
      const first = await start(a, { input: { x: 1, y: [1, 2] } }, keys.user, headers);
      expect(first.status).toBe(201);
      const again = await start(a, { input: { y: [1, 2], x: 1 } }, keys.user, headers);
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(first.body.id);
      const differs = await start(a, { input: { x: 2 } }, keys.user, headers);
      expect(differs.status).toBe(409);
      expect(differs.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
      const someoneElse = await start(a, { input: { x: 1, y: [1, 2] } }, keys.other, headers);
      expect(someoneElse.status).toBe(201);
      expect(someoneElse.body.id).not.toBe(first.body.id);
      const concurrent = await Promise.all(Array.from({ length: 5 }, () => start(a, { input: 'same' }, keys.user, { 'idempotency-key': 'burst' })));
      expect(new Set(concurrent.map((r) => r.body.id)).size).toBe(1);
      expect(concurrent.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
      for (const bad of ['', 'x'.repeat(256), 'tab\there', 'é']) {
        const r = await start(a, {}, keys.user, { 'idempotency-key': bad });
        expect(r.status).toBe(400);
        expect(r.body.errors[0].pointer).toBe('/headers/idempotency-key');
      }
    });
  });

  describe('the runs list', () => {
    test('whole run records, filter and sort on the named fields', async () => {
      const a = await agent();
      const done = await ended((await start(a, { input: { script: [{ finish: 1 }] } })).body.id);
      await ended((await start(a, { input: { script: [{ fail: 'no' }] } })).body.id);
      const list = await p.json<{ data: Run[] }>('GET', `/api/v1/agents/${a}/runs?filter=${encodeURIComponent(JSON.stringify({ field: 'status', op: 'eq', value: 'completed' }))}`, { key: keys.user });
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([await get(done.id)]);
      const sorted = await p.json<{ data: Run[] }>('GET', `/api/v1/agents/${a}/runs?sort=-createdAt&fields=id,status`, { key: keys.user });
      expect(sorted.body.data.map((r) => r.status)).toEqual(['failed', 'completed']);
      expect(Object.keys(sorted.body.data[0]!).sort()).toEqual(['id', 'status']);
    });
  });
});
