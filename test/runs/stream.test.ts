// GET /api/v1/agents/runs/{runId}/events/stream (DESIGN §5): Server-Sent Events over a real HTTP
// server (Bun.serve around the control plane) and in-process, on both databases. Every event once
// and in seq order, framed `id:` / `event:` / `data:` with the events list's rows; resumption with
// Last-Event-ID and ?after= from any cursor, also after a dropped connection; the end after the
// run's final state event; bad cursors, invisible runs and access.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Server } from 'bun';
import { startTestPlatform, type TestPlatform, userKey } from '../helpers/platform.ts';
import { databaseCases, dropPostgresSchema } from '../helpers/databases.ts';
import { readSse, type SseFrame } from './sse.ts';

type Run = Record<string, any>;
type Event = { id: string; runId: string; seq: number; type: string; tickIndex: number | null; actor: string; data: any; createdAt: string };

const FINAL_EVENTS = ['run.completed', 'run.failed', 'run.cancelled', 'run.timed_out'];
const FINAL = ['completed', 'failed', 'cancelled', 'timed_out'];

for (const database of databaseCases()) describe(`on ${database.name}`, () => {
  let p: TestPlatform;
  let server: Server<undefined>;
  const keys: Record<string, string> = {};

  async function principal(name: string, roles: string[], workspaceIds?: string[]) {
    keys[name] = await userKey(p, name, roles, workspaceIds);
  }

  beforeAll(async () => {
    p = await startTestPlatform(database.env, { postgresSchema: database.postgresSchema });
    server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => p.app.handle(request) });
    const other = await p.json<{ id: string }>('POST', '/api/v1/workspaces', { body: { name: 'elsewhere' } });
    await principal('author', ['AGENT_ADMIN']);
    await principal('user', ['AGENT_USER']);
    await principal('outsider', ['AGENT_USER'], [other.body.id]);
    await principal('outsideAdmin', ['AGENT_ADMIN'], [other.body.id]);
    await principal('endpointsOnly', ['ENDPOINT_ADMIN']);
  });
  afterAll(async () => {
    await server.stop(true);
    await p.close();
    await dropPostgresSchema(database.postgresSchema);
  });

  let agents = 0;
  const agent = async (body: Record<string, unknown> = {}) =>
    (await p.json<{ id: string }>('POST', '/api/v1/agents', { key: keys.author, body: { name: `stream-agent-${++agents}`, ...body } })).body.id;
  const start = async (agentId: string, script: unknown[]) => {
    const r = await p.json<Run>('POST', `/api/v1/agents/${agentId}/runs`, { key: keys.user, body: { input: { script } } });
    expect(r.status).toBe(201);
    return r.body;
  };
  const get = async (runId: string) => (await p.json<Run>('GET', `/api/v1/agents/runs/${runId}`, { key: keys.user })).body;
  const events = async (runId: string): Promise<Event[]> => (await p.json<{ data: Event[] }>('GET', `/api/v1/agents/runs/${runId}/events?limit=10000`, { key: keys.user })).body.data;
  async function until(runId: string, done: (run: Run) => boolean, ms = 10_000): Promise<Run> {
    const deadline = Date.now() + ms;
    for (;;) {
      const run = await get(runId);
      if (done(run)) return run;
      if (Date.now() > deadline) throw new Error(`run ${runId} is ${run.status} after ${ms} ms`);
      await Bun.sleep(25);
    }
  }
  const ended = (runId: string) => until(runId, (r) => FINAL.includes(r.status));

  /** The events carried by SSE frames, checked for the framing DESIGN §5 gives them. */
  function framed(frames: SseFrame[]): Event[] {
    return frames.map((frame) => {
      expect(frame.fields.map(([name]) => name)).toEqual(['id', 'event', 'data']);
      const event = JSON.parse(frame.data!) as Event;
      expect(frame.id).toBe(String(event.seq));
      expect(frame.event).toBe(event.type);
      return event;
    });
  }

  for (const transport of ['http', 'in-process'] as const) describe(`over ${transport}`, () => {
    /** Opens the stream of a run (a real socket, or the app in-process). */
    const open = (runId: string, options: { key?: string | null; lastEventId?: string; after?: string; query?: string } = {}): Promise<Response> => {
      const headers: Record<string, string> = {};
      const key = options.key === undefined ? keys.user! : options.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
      const query = options.query ?? (options.after !== undefined ? `?after=${encodeURIComponent(options.after)}` : '');
      const path = `/api/v1/agents/runs/${runId}/events/stream${query}`;
      return transport === 'http' ? fetch(`http://127.0.0.1:${server.port}${path}`, { headers }) : p.app.handle(new Request(`http://localhost${path}`, { headers }));
    };
    const openOk = async (runId: string, options: Parameters<typeof open>[1] = {}) => {
      const response = await open(runId, options);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toStartWith('text/event-stream');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      return response;
    };

    test('a live stream sends every event once in seq order, framed id/event/data with the list rows, and closes after run.completed', async () => {
      const run = await start(await agent(), [{ say: 'one' }, { sleep: 250 }, { say: 'two' }, { sleep: 250 }, { finish: { n: 1 } }]);
      const response = await openOk(run.id);
      // Opened while the run goes on: what follows arrives live.
      expect(FINAL).not.toContain((await get(run.id)).status);
      const read = await readSse(response);
      expect(read.error).toBeUndefined();
      expect(read.ended).toBe(true);
      expect(read.rest).toBe('');
      const sent = framed(read.events);
      const list = await events(run.id);
      expect(sent).toEqual(list);
      expect(sent.map((e) => e.seq)).toEqual(list.map((_, i) => i + 1));
      expect(sent.at(-1)!.type).toBe('run.completed');
      expect(sent.filter((e) => FINAL_EVENTS.includes(e.type))).toHaveLength(1);
      expect(sent.filter((e) => e.type === 'message.created').map((e) => e.data.text)).toEqual(['one', 'two']);
    });

    test('each cursor (0, a middle seq, the last) by Last-Event-ID and by ?after= sends exactly the later events, then closes', async () => {
      const run = await start(await agent(), [{ say: 'a' }, { say: 'b' }, { finish: 'done' }]);
      await ended(run.id);
      const list = await events(run.id);
      const last = list.at(-1)!.seq;
      const middle = Math.floor(last / 2);
      for (const cursor of [0, 1, middle, last - 1, last, last + 10]) {
        for (const how of ['lastEventId', 'after'] as const) {
          const read = await readSse(await openOk(run.id, { [how]: String(cursor) }), { ms: 10_000 });
          expect(read.ended).toBe(true);
          expect(framed(read.events)).toEqual(list.filter((e) => e.seq > cursor));
        }
      }
      // Without a cursor the stream starts at the first event; the header wins over the query.
      expect(framed((await readSse(await openOk(run.id))).events)).toEqual(list);
      const both = await readSse(await openOk(run.id, { lastEventId: String(middle), after: '0' }));
      expect(framed(both.events).map((e) => e.seq)).toEqual(list.filter((e) => e.seq > middle).map((e) => e.seq));
    });

    test('a connection dropped mid-run and resumed with the last id seen (Last-Event-ID, then ?after=) has no gap and no repeat', async () => {
      const script = [{ say: 't0' }, { sleep: 200 }, { say: 't2' }, { sleep: 200 }, { say: 't4' }, { sleep: 200 }, { finish: 'end' }];
      const run = await start(await agent(), script);
      const tickDone = (tick: number) => (frames: SseFrame[]) => frames.some((f) => f.event === 'tick.completed' && JSON.parse(f.data!).tickIndex === tick);
      const first = await readSse(await openOk(run.id), { stop: tickDone(1) });
      expect(first.ended).toBe(false);
      const firstIds = framed(first.events).map((e) => e.seq);
      // Events happen while nobody listens.
      await Bun.sleep(250);
      const second = await readSse(await openOk(run.id, { lastEventId: String(firstIds.at(-1)) }), { stop: tickDone(4) });
      expect(second.ended).toBe(false);
      const secondIds = framed(second.events).map((e) => e.seq);
      await Bun.sleep(150);
      const third = await readSse(await openOk(run.id, { after: String(secondIds.at(-1)) }));
      expect(third.ended).toBe(true);
      const seen = [...framed(first.events), ...framed(second.events), ...framed(third.events)];
      expect(seen.at(-1)!.type).toBe('run.completed');
      const list = await events(run.id);
      expect(seen).toEqual(list);
      expect(seen.map((e) => e.seq)).toEqual(list.map((_, i) => i + 1));
      expect(secondIds.length).toBeGreaterThan(0);
    });

    test('a stream opened after the run ended sends everything and closes; so does one on a failed or timed-out run', async () => {
      const done = await start(await agent(), [{ say: 'x' }, { finish: 1 }]);
      await ended(done.id);
      const read = await readSse(await openOk(done.id), { ms: 10_000 });
      expect(read.ended).toBe(true);
      expect(framed(read.events)).toEqual(await events(done.id));

      const failing = await start(await agent(), [{ sleep: 150 }, { fail: 'broken' }]);
      const failed = await readSse(await openOk(failing.id));
      expect(failed.ended).toBe(true);
      expect(framed(failed.events).at(-1)).toMatchObject({ type: 'run.failed', data: { stopReason: 'model_error' } });

      const short = await agent({ config: { maxTicks: 1 } });
      const over = await start(short, [{ sleep: 100 }, { say: 'never' }]);
      const timedOut = await readSse(await openOk(over.id));
      expect(timedOut.ended).toBe(true);
      expect(framed(timedOut.events).at(-1)).toMatchObject({ type: 'run.timed_out', data: { stopReason: 'max_ticks' } });
    });

    test('a queued run keeps its stream open; cancelled, the stream ends after run.cancelled; a running one through run.cancelling', async () => {
      const paused = await agent({ status: 'PAUSED' });
      const queued = await start(paused, [{ finish: 1 }]);
      const waiting = readSse(await openOk(queued.id));
      let settled = false;
      void waiting.then(() => (settled = true));
      await Bun.sleep(700);
      expect(settled).toBe(false);
      expect((await p.json('POST', `/api/v1/agents/runs/${queued.id}/cancel`, { key: keys.user })).status).toBe(202);
      const read = await waiting;
      expect(read.ended).toBe(true);
      expect(framed(read.events).map((e) => e.type)).toEqual(['run.queued', 'run.cancelled']);

      const running = await start(await agent(), [{ sleep: 60_000 }]);
      await until(running.id, (r) => r.status === 'running');
      const live = readSse(await openOk(running.id));
      await Bun.sleep(200);
      expect((await p.json('POST', `/api/v1/agents/runs/${running.id}/cancel`, { key: keys.user })).status).toBe(202);
      const stopped = await live;
      expect(stopped.ended).toBe(true);
      const types = framed(stopped.events).map((e) => e.type);
      expect(types.slice(-2)).toEqual(['run.cancelling', 'run.cancelled']);
      expect(framed(stopped.events)).toEqual(await events(running.id));
    });

    test("a child run's stream carries its own events and closes at its end; several subscribers each get every event once", async () => {
      const parent = await start(await agent(), [{ delegate: [{ input: { script: [{ sleep: 200 }, { finish: 'child' }] } }] }, { finish: 'parent' }]);
      const subscribers = [readSse(await openOk(parent.id)), readSse(await openOk(parent.id, { after: '1' }))];
      let childId: string | undefined;
      for (let i = 0; i < 200 && !childId; i++, await Bun.sleep(20)) childId = (await events(parent.id)).find((e) => e.type === 'child_run.spawned')?.data.childRunId;
      expect(childId).toBeDefined();
      subscribers.push(readSse(await openOk(parent.id)));
      const child = await readSse(await openOk(childId!));
      expect(child.ended).toBe(true);
      const childEvents = framed(child.events);
      expect(childEvents).toEqual(await events(childId!));
      expect(childEvents.every((e) => e.runId === childId && (e as any).parentRunId === parent.id)).toBe(true);
      expect(childEvents.at(-1)!.type).toBe('run.completed');
      const [a, b, c] = await Promise.all(subscribers);
      const list = await events(parent.id);
      for (const read of [a!, c!]) {
        expect(read.ended).toBe(true);
        expect(framed(read.events)).toEqual(list);
      }
      expect(framed(b!.events)).toEqual(list.slice(1));
    });

    // The feed's paging does not depend on the transport: over HTTP only (the run takes seconds).
    if (transport === 'http') test('a run with more events than the feed keeps: streams from 0, from the middle and live each get every event once, in order', async () => {
      // 520 unknown tools in one tick: 1040 tool_call events, more than a stream's page (500) and
      // than a feed keeps (1000).
      const calls = Array.from({ length: 520 }, (_, i) => ({ name: `missing-${i}` }));
      const run = await start(await agent(), [{ sleep: 200 }, { tools: calls }, { sleep: 200 }, { finish: 'many' }]);
      const live = readSse(await openOk(run.id), { ms: 50_000 });
      await until(run.id, (r) => FINAL.includes(r.status), 45_000);
      const list = (await p.json<{ data: Event[] }>('GET', `/api/v1/agents/runs/${run.id}/events?limit=10000`, { key: keys.user })).body.data;
      expect(list.length).toBeGreaterThan(1040);
      const fromZero = await readSse(await openOk(run.id), { ms: 30_000 });
      const fromMiddle = await readSse(await openOk(run.id, { lastEventId: '700' }), { ms: 30_000 });
      for (const [read, expected] of [[await live, list], [fromZero, list], [fromMiddle, list.filter((e) => e.seq > 700)]] as const) {
        expect(read.ended).toBe(true);
        expect(framed(read.events)).toEqual(expected);
      }
    }, 80_000);

    test('a bad cursor (-1, abc, 1.5, empty) is 400 problem+json pointing at the header or the query parameter', async () => {
      const run = await start(await agent({ status: 'PAUSED' }), [{ finish: 1 }]);
      for (const bad of ['-1', 'abc', '1.5', '1e3', '0x10', '']) {
        for (const [how, pointer] of [['lastEventId', '/headers/last-event-id'], ['after', '/query/after']] as const) {
          const response = await open(run.id, { [how]: bad });
          expect(response.status).toBe(400);
          expect(response.headers.get('content-type')).toStartWith('application/problem+json');
          const body = (await response.json()) as { status: number; code: string; errors: { pointer: string }[]; oid: string };
          expect(body).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
          expect(body.errors.map((e) => e.pointer)).toEqual([pointer]);
          expect(body.oid).toBe(response.headers.get('x-svc-oid')!);
        }
      }
    });

    test('access: an AGENT_USER of the workspace reads the stream; another workspace, unknown and malformed ids are 404; no agent role 403; no credential 401', async () => {
      const run = await start(await agent(), [{ finish: 'visible' }]);
      await ended(run.id);
      const mine = await readSse(await openOk(run.id, { key: keys.user }));
      expect(mine.ended).toBe(true);
      expect(framed(mine.events).at(-1)!.type).toBe('run.completed');
      const refused = async (runId: string, key: string | null, status: number) => {
        const response = await open(runId, { key });
        expect(response.status).toBe(status);
        expect(response.headers.get('content-type')).toStartWith('application/problem+json');
        const body = (await response.json()) as { status: number };
        expect(body.status).toBe(status);
      };
      await refused(run.id, keys.outsider!, 404);
      await refused(run.id, keys.outsideAdmin!, 404);
      await refused(crypto.randomUUID(), keys.user!, 404);
      await refused('not-a-uuid', keys.user!, 404);
      await refused(run.id, keys.endpointsOnly!, 403);
      await refused(run.id, null, 401);
      // A bad cursor on a run the caller may not see is still 404: nothing about the run leaks.
      const hidden = await open(run.id, { key: keys.outsider!, after: 'abc' });
      expect(hidden.status).toBe(404);
    });
  });
});
