// Findings of the hostile audit of the run engine (issue #22), now regression tests: each states
// what DESIGN §5 promises and failed on the engine as it was, reproducing one defect that is fixed.
// Numbered by severity (F1 most severe), grouped here by harness. (F7, deleting an agent mid-run,
// is left as designed: DELETE removes the agent with its runs and their events; open streams end.)
//
// Found without a test (DESIGN sets no bound to hold them to):
// - maxChildRuns bounds a parent's children, not a tree: a delegation whose children delegate
//   again multiplies. 4.3 KB of input made 1,057 runs (32 × 32); 54 KB makes 16,513 (128 × 128);
//   the 4 MiB body limit allows about 1,010,101 (100³) from one request by an AGENT_USER.
// - A run's state (its whole conversation, the input as JSON included) is rewritten every tick and
//   every echoContext event carries the whole context: writes grow with ticks × input size.
// - Every open stream polls the database (its run's feed every 500 ms, the run's status every
//   second): 256 idle streams cost about 20–30 % of a core; queued runs that cannot start are
//   retried in a write transaction each every 250 ms (100 on a PAUSED agent: 7–17 % of a core).
import { afterAll, describe, expect, test } from 'bun:test';
import { connect, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN } from '../blackbox/server.ts';
import { tempDir } from '../helpers/temp.ts';
import { freshDatabase, startPlatformProcess, type PlatformProcess } from './processes.ts';
import { platformFor, type TestPlatform } from '../helpers/platform.ts';
import { databaseCases } from '../helpers/databases.ts';
import { readSse } from './sse.ts';

type Run = Record<string, any>;
const FINAL = ['completed', 'failed', 'cancelled', 'timed_out'];
const FINAL_EVENTS = ['run.completed', 'run.failed', 'run.cancelled', 'run.timed_out'];

describe('the whole server on its embedded default (SQLite), over HTTP', () => {
  const servers: PlatformProcess[] = [];
  afterAll(async () => {
    await Promise.all(servers.splice(0).map((s) => s.kill('SIGKILL').catch(() => null)));
  });
  const serve = async () => {
    const dir = tempDir('findings');
    const s = await startPlatformProcess('all', { DATA_DIR: dir, DATABASE_URL: `sqlite:${join(dir, 'platform.db')}` });
    servers.push(s);
    return s;
  };
  async function until(s: PlatformProcess, runId: string, done: (run: Run) => boolean, ms: number): Promise<Run> {
    const deadline = Date.now() + ms;
    for (;;) {
      const run = (await s.api('GET', `/agents/runs/${runId}`)).body as Run;
      if (done(run) || Date.now() > deadline) return run;
      await Bun.sleep(50);
    }
  }

  // F2. The engine's loop never yields to the event loop while a run's ticks need no real I/O
  // (bun:sqlite is synchronous): one run of quick scripted ticks freezes the server until it ends.
  test('F2: a run of many quick ticks does not freeze the server: cancel is answered and takes effect within 2 s', async () => {
    const s = await serve();
    const agent = (await s.api('POST', '/agents', { name: 'quick-ticks', config: { maxTicks: 1000 } })).body.id;
    const run = (await s.api('POST', `/agents/${agent}/runs`, { input: { script: Array.from({ length: 600 }, (_, i) => ({ say: `step ${i}` })) } })).body;
    await Bun.sleep(100);
    const asked = Date.now();
    const [health, cancel] = await Promise.all([
      fetch(`${s.cp}/healthz`).then(() => Date.now() - asked),
      s.api('POST', `/agents/runs/${run.id}/cancel`).then((r) => ({ status: r.status, ms: Date.now() - asked })),
    ]);
    const done = await until(s, run.id, (r) => FINAL.includes(r.status), 30_000);
    // DESIGN §5: running → cancelling, then cancelled within 2 s (the tick in flight is aborted).
    expect({ cancelStatus: cancel.status, answeredWithin2s: cancel.ms < 2000, healthWithin2s: health < 2000 }).toEqual({ cancelStatus: 202, answeredWithin2s: true, healthWithin2s: true });
    expect(done).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
  }, 60_000);

  // F5. Bun.serve's default idleTimeout (10 s) is shorter than the stream's heartbeat (15 s): a
  // stream with nothing to send for 10 s is cut by the server.
  test('F5: an event stream stays open through a tick of 12 s without events and ends after run.completed', async () => {
    const s = await serve();
    const agent = (await s.api('POST', '/agents', { name: 'slow-tick' })).body.id;
    const run = (await s.api('POST', `/agents/${agent}/runs`, { input: { script: [{ say: 'before' }, { sleep: 12_000 }, { finish: 'after' }] } })).body;
    const response = await s.stream(run.id);
    expect(response.status).toBe(200);
    const read = await readSse(response, { ms: 30_000 });
    // DESIGN §5: "a comment line every 15 s, and closes after the run's final event".
    expect({ error: read.error ?? null, ended: read.ended, last: read.events.at(-1)?.event }).toEqual({ error: null, ended: true, last: 'run.completed' });
  }, 45_000);

  // F6. The stream enqueues every event whether or not the client reads (no backpressure): the
  // server holds a copy of the whole run's events per stalled client.
  test('F6: clients that never read do not make the server buffer every event for each of them', async () => {
    const s = await serve();
    const agent = (await s.api('POST', '/agents', { name: 'big-events' })).body.id;
    // Each echoContext event carries the whole context, the 1 MB input included (about 2 MB an event).
    const run = (await s.api('POST', `/agents/${agent}/runs`, { input: { pad: 'p'.repeat(1_000_000), script: [{ sleep: 1000 }, ...Array.from({ length: 12 }, () => ({ echoContext: true }))] } })).body;
    const before = rssMb(s.pid);
    const { hostname, port } = new URL(s.cp);
    const sockets: Socket[] = [];
    for (let i = 0; i < 8; i++) {
      const socket = connect(Number(port), hostname);
      socket.pause(); // never reads
      socket.on('error', () => {});
      socket.write(`GET /api/v1/agents/runs/${run.id}/events/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN}\r\n\r\n`);
      sockets.push(socket);
    }
    let peak = before;
    const deadline = Date.now() + 60_000;
    while (!FINAL.includes((await s.api('GET', `/agents/runs/${run.id}`)).body.status) && Date.now() < deadline) {
      peak = Math.max(peak, rssMb(s.pid));
      await Bun.sleep(250);
    }
    for (let i = 0; i < 8; i++, await Bun.sleep(250)) peak = Math.max(peak, rssMb(s.pid));
    for (const socket of sockets) socket.destroy();
    // About 25 MB of events (kept once by the feed): 8 stalled clients may cost some buffering each, not a copy of it all.
    expect(Math.round(peak - before)).toBeLessThan(160);
  }, 90_000);
});

// F4. A finish tick commits usage.reported + tick.completed (tickCount = the script's length) in
// one transaction and run.completed with the output in the next. A process that dies between the
// two leaves a run that the next process "goes on" with: the script has no step left, so it
// completes with output null; the finish value is lost (a `fail` as the last step likewise ends
// `completed`). Deterministic on Postgres: the test holds a lock that only the completion needs
// (the memory record's insert), kills the process while it waits, then lets go.
describe.skipIf(!databaseCases().some((c) => c.name === 'postgres'))('on Postgres, two processes one after the other', () => {
  test('F4: a run taken over between its finish tick and run.completed completes with the finish output', async () => {
    const db = await freshDatabase();
    const processes: PlatformProcess[] = [];
    const controlPlane = async () => {
      const p = await startPlatformProcess('control-plane', { DATA_DIR: tempDir('findings-cp'), DATABASE_URL: db.url, RUN_LEASE_MS: '1000' });
      processes.push(p);
      return p;
    };
    let release = () => {};
    try {
      const a = await controlPlane();
      const agent = (await a.api('POST', '/agents', { name: 'finisher' })).body.id;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked = () => {};
      const holding = new Promise<void>((resolve) => (locked = resolve));
      // EXCLUSIVE lets the ticks' memory recall read, and stops the completion's insert.
      const lock = db.sql.begin(async (tx) => {
        await tx`LOCK TABLE agent_memory IN EXCLUSIVE MODE`;
        locked();
        await released;
      });
      await holding;
      const run = (await a.api('POST', `/agents/${agent}/runs`, { input: { script: [{ say: 'working' }, { finish: 'kept' }] } })).body;
      const deadline = Date.now() + 15_000;
      // The finish tick's end (tick.completed, memory.stored, run.completed) is one transaction, held
      // up by the lock: the process dies inside the finishing tick.
      while (!((await a.api('GET', `/agents/runs/${run.id}/events?limit=1000`)).body.data as { type: string; tickIndex: number }[]).some((e) => e.type === 'tick.started' && e.tickIndex === 1)) {
        if (Date.now() > deadline) throw new Error('the finish tick did not start');
        await Bun.sleep(50);
      }
      await Bun.sleep(300);
      expect((await a.api('GET', `/agents/runs/${run.id}`)).body).toMatchObject({ status: 'running', tickCount: 1 });
      await a.kill('SIGKILL');
      release();
      await lock;
      const b = await controlPlane();
      let done: Run = {};
      for (const end = Date.now() + 20_000; Date.now() < end; await Bun.sleep(100)) {
        done = (await b.api('GET', `/agents/runs/${run.id}`)).body;
        if (FINAL.includes(done.status)) break;
      }
      // DESIGN §5: `{"finish": value}` — the run completes with output = value; after a crash "a
      // running one goes on from its last completed tick".
      expect(done).toMatchObject({ status: 'completed', output: 'kept' });
    } finally {
      release();
      await Promise.all(processes.map((p) => p.kill('SIGKILL').catch(() => null)));
      await db.drop();
    }
  }, 60_000);
});

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

for (const database of databaseCases()) describe(`on ${database.name}, in-process`, () => {
  let p: TestPlatform;
  platformFor(database, (started) => void (p = started));
  const agent = async (body: Record<string, unknown> = {}) => (await p.json<{ id: string }>('POST', '/api/v1/agents', { body: { name: `finding-${crypto.randomUUID()}`, ...body } })).body.id;
  const start = async (agentId: string, body: Record<string, unknown>) => {
    const r = await p.json<Run>('POST', `/api/v1/agents/${agentId}/runs`, { body });
    expect(r.status).toBe(201);
    return r.body;
  };
  const get = async (runId: string) => (await p.json<Run>('GET', `/api/v1/agents/runs/${runId}`)).body;
  async function until(runId: string, done: (run: Run) => boolean, ms: number): Promise<Run> {
    const deadline = Date.now() + ms;
    for (;;) {
      const run = await get(runId);
      if (done(run) || Date.now() > deadline) return run;
      await Bun.sleep(50);
    }
  }

  // F3. The scheduler considers only the 64 oldest queued runs of the whole instance: when they
  // cannot start (their agent is at maxActiveRootRuns, or PAUSED), no other agent's run starts.
  test("F3: one agent's queue does not hold back another agent's runs", async () => {
    const busy = await agent();
    const sleeper = await start(busy, { input: { script: [{ sleep: 60_000 }] } });
    try {
      await until(sleeper.id, (r) => r.status === 'running', 10_000);
      for (let i = 0; i < 64; i += 16) await Promise.all(Array.from({ length: 16 }, (_, j) => start(busy, { input: { script: [{ finish: i + j }] } })));
      const other = await start(await agent(), { input: { script: [{ finish: 'mine' }] } });
      // DESIGN §5: "An agent's root runs beyond maxActiveRootRuns ... stay queued" (that agent's, not everyone's).
      expect(await until(other.id, (r) => FINAL.includes(r.status), 4000)).toMatchObject({ status: 'completed', output: 'mine' });
    } finally {
      // DISABLED cancels the busy agent's runs: the next tests' runs are not held back by them.
      await p.json('PATCH', `/api/v1/agents/${busy}`, { body: { status: 'DISABLED' } });
      await until(sleeper.id, (r) => FINAL.includes(r.status), 5000);
    }
  }, 30_000);

  // F1. A child started through the API (parentRunId) that is still queued when its parent ends
  // can never start (tryStart wants an active parent) and is never stopped: queued for ever. With
  // F3, 64 such orphans (about 66 requests of an AGENT_USER) stop every agent's runs for good.
  test('F1: a child run started through the API never stays queued for ever when its parent ends first', async () => {
    const a = await agent({ config: { maxConcurrentChildRuns: 1 } });
    const parent = await start(a, { input: { script: [{ sleep: 500 }, { finish: 'parent' }] } });
    await until(parent.id, (r) => r.status === 'running', 10_000);
    const first = await start(a, { parentRunId: parent.id, input: { script: [{ sleep: 800 }, { finish: 1 }] } });
    const second = await start(a, { parentRunId: parent.id, input: { script: [{ finish: 2 }] } });
    expect((await until(parent.id, (r) => FINAL.includes(r.status), 10_000)).status).toBe('completed');
    await until(first.id, (r) => FINAL.includes(r.status), 10_000);
    // Either it ran (queued "until one finishes", DESIGN §5 Scheduling) or it was stopped with its parent.
    const ended = await until(second.id, (r) => FINAL.includes(r.status), 4000);
    expect(ended.status).toBeOneOf(FINAL);
  }, 40_000);

  // F8. A malformed ?after= (a bracket object) is ignored and the stream starts at the first event.
  test('F8: ?after[x]=2 is a malformed query parameter: 400 pointing at /query/after', async () => {
    const run = await start(await agent({ status: 'PAUSED' }), { input: { script: [{ finish: 1 }] } });
    await p.json('POST', `/api/v1/agents/runs/${run.id}/cancel`);
    const response = await p.call('GET', `/api/v1/agents/runs/${run.id}/events/stream?after[x]=2`);
    // DESIGN §3: 400 for a malformed query parameter, with a pointer into /query/<param>.
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: { pointer: string }[] };
    expect(body.errors[0]!.pointer).toStartWith('/query/after');
  });
});
