// Durability of runs (DESIGN §5 Durability, §12): whole server processes killed and restarted on
// the same database. A run interrupted by SIGKILL or SIGTERM goes on in the next process from its
// last completed tick (run.resumed {takenOver: true}; the interrupted tick's tick.started may
// appear twice, its tick.completed once; seq stays dense); queued runs start after a restart; an
// event stream resumed on the new process has no gap and no repeat. On Postgres, two control-plane
// processes share the engine through leases: no run executes twice, and when one process dies the
// other takes its runs over.
import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp.ts';
import { databaseCases } from '../helpers/databases.ts';
import { freshDatabase, runUntil as until, startPlatformProcess, type PlatformProcess } from './processes.ts';
import { readSse, type SseFrame } from './sse.ts';

type Event = { seq: number; type: string; tickIndex: number | null; actor: string; data: any };
type Run = Record<string, any>;

const FINAL = ['completed', 'failed', 'cancelled', 'timed_out'];
const LEASE = { RUN_LEASE_MS: '1000' };
const JWT = { JWT_SECRET: 'durability-test-secret-0123456789abcdef' };

const started: PlatformProcess[] = [];
afterAll(async () => {
  await Promise.all(started.splice(0).map((p) => p.kill('SIGKILL').catch(() => null)));
});
async function launch(role: 'all' | 'control-plane', env: Record<string, string>): Promise<PlatformProcess> {
  const p = await startPlatformProcess(role, { ...LEASE, ...JWT, ...env });
  started.push(p);
  return p;
}

async function events(p: PlatformProcess, runId: string): Promise<Event[]> {
  const r = await p.api('GET', `/agents/runs/${runId}/events?limit=10000`);
  expect(r.status).toBe(200);
  return r.body.data;
}
async function untilEvent(p: PlatformProcess, runId: string, found: (e: Event) => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await events(p, runId)).some(found)) {
    if (Date.now() > deadline) throw new Error(`run ${runId}: no such event after ${ms} ms`);
    await Bun.sleep(50);
  }
}
const count = (list: Event[], type: string, tickIndex?: number) => list.filter((e) => e.type === type && (tickIndex === undefined || e.tickIndex === tickIndex)).length;
const takeovers = (list: Event[]) => list.filter((e) => e.type === 'run.resumed' && e.data?.takenOver === true);

/** What every run's event log keeps through crashes: seq dense, one start, one completion per tick, the final event last. */
function checkLog(list: Event[], ticks: number): void {
  expect(list.map((e) => e.seq)).toEqual(list.map((_, i) => i + 1));
  expect(count(list, 'run.queued')).toBe(1);
  expect(count(list, 'run.started')).toBe(1);
  for (let tick = 0; tick < ticks; tick++) {
    expect(count(list, 'tick.completed', tick)).toBe(1);
    expect(count(list, 'usage.reported', tick)).toBe(1);
    expect(count(list, 'tick.started', tick)).toBeGreaterThanOrEqual(1);
    expect(count(list, 'tick.started', tick)).toBeLessThanOrEqual(2);
  }
  expect(count(list, 'tick.completed')).toBe(ticks);
  expect(list.filter((e) => ['run.completed', 'run.failed', 'run.cancelled', 'run.timed_out'].includes(e.type))).toHaveLength(1);
  expect(list.at(-1)!.type).toBe('run.completed');
}
const seqsOf = (frames: SseFrame[]) => frames.map((f) => Number(f.id));

describe('one server on a SQLite file, restarted', () => {
  const sqlite = () => {
    const dir = tempDir('durability');
    return { DATA_DIR: dir, DATABASE_URL: `sqlite:${join(dir, 'platform.db')}` };
  };

  test('SIGKILL during a sleeping tick: the next server takes the run over from its last completed tick; the stream resumes there with no gap and no repeat', async () => {
    const env = sqlite();
    const a = await launch('all', env);
    const agent = (await a.api('POST', '/agents', { name: 'crash' })).body.id;
    const run = (await a.api('POST', `/agents/${agent}/runs`, { input: { script: [{ say: 'before' }, { sleep: 2000 }, { say: 'after' }, { sleep: 200 }, { finish: 'survived' }] } })).body;
    // Watch the run live until the sleeping tick (1) has started, then kill the server.
    const tickStarted = (tick: number) => (frames: SseFrame[]) => frames.some((f) => f.event === 'tick.started' && JSON.parse(f.data!).tickIndex === tick);
    const before = await readSse(await a.stream(run.id), { stop: tickStarted(1) });
    expect(before.ended).toBe(false);
    const beforeKill = await events(a, run.id);
    expect(count(beforeKill, 'tick.completed', 0)).toBe(1);
    expect(count(beforeKill, 'tick.completed', 1)).toBe(0);
    expect(await a.kill('SIGKILL')).toBeNull();

    const b = await launch('all', env);
    const after = await readSse(await b.stream(run.id, { 'last-event-id': String(seqsOf(before.events).at(-1)) }));
    expect(after.ended).toBe(true);
    const done = await until(b, run.id, (r) => FINAL.includes(r.status));
    expect(done).toMatchObject({ status: 'completed', stopReason: 'completed', output: 'survived', tickCount: 5 });
    const list = await events(b, run.id);
    checkLog(list, 5);
    // The interrupted tick ran again: its tick.started twice, its tick.completed once.
    expect(count(list, 'tick.started', 1)).toBe(2);
    const resumed = takeovers(list);
    expect(resumed).toHaveLength(1);
    expect(resumed[0]!.data).toEqual({ takenOver: true });
    const [firstStart, secondStart] = list.filter((e) => e.type === 'tick.started' && e.tickIndex === 1).map((e) => e.seq);
    expect(resumed[0]!.seq).toBeGreaterThan(firstStart!);
    expect(resumed[0]!.seq).toBeLessThan(secondStart!);
    // Nothing the killed process wrote is lost or written again.
    expect(list.slice(0, beforeKill.length)).toEqual(beforeKill);
    expect(list.filter((e) => e.type === 'message.created').map((e) => e.data.text)).toEqual(['before', 'after']);
    // The stream read on the killed process and the one resumed on the new one: every seq once.
    const seen = [...seqsOf(before.events), ...seqsOf(after.events)];
    expect(seen).toEqual(list.map((e) => e.seq));
  }, 60_000);

  test('queued runs start after a restart, in creation order, and are not counted as taken over', async () => {
    const env = sqlite();
    const a = await launch('all', env);
    const agent = (await a.api('POST', '/agents', { name: 'queue' })).body.id;
    const first = (await a.api('POST', `/agents/${agent}/runs`, { input: { script: [{ sleep: 3000 }, { finish: 1 }] } })).body;
    const second = (await a.api('POST', `/agents/${agent}/runs`, { input: { script: [{ say: 'two' }, { finish: 2 }] } })).body;
    const third = (await a.api('POST', `/agents/${agent}/runs`, { input: { script: [{ finish: 3 }] } })).body;
    await until(a, first.id, (r) => r.status === 'running');
    expect((await a.api('GET', `/agents/runs/${second.id}`)).body).toMatchObject({ status: 'queued', queuePosition: 1 });
    expect((await a.api('GET', `/agents/runs/${third.id}`)).body).toMatchObject({ status: 'queued', queuePosition: 2 });
    expect(await a.kill('SIGKILL')).toBeNull();

    const b = await launch('all', env);
    const runs = [];
    for (const r of [first, second, third]) runs.push(await until(b, r.id, (x) => FINAL.includes(x.status)));
    expect(runs.map((r) => [r.status, r.output])).toEqual([['completed', 1], ['completed', 2], ['completed', 3]]);
    // maxActiveRootRuns 1 still holds after the restart: each starts after the one before ended.
    for (let i = 1; i < runs.length; i++) expect(Date.parse(runs[i]!.startedAt)).toBeGreaterThanOrEqual(Date.parse(runs[i - 1]!.endedAt));
    const firstLog = await events(b, first.id);
    checkLog(firstLog, 2);
    expect(takeovers(firstLog)).toHaveLength(1);
    for (const [r, ticks] of [[second, 2], [third, 1]] as const) {
      const list = await events(b, r.id);
      checkLog(list, ticks);
      expect(count(list, 'run.resumed')).toBe(0);
    }
  }, 60_000);

  test('SIGTERM mid-run: the server ends the live stream and exits 0; restarted, the run goes on (takenOver) and the stream resumes with no gap', async () => {
    const env = sqlite();
    const a = await launch('all', env);
    const agent = (await a.api('POST', '/agents', { name: 'graceful' })).body.id;
    const run = (await a.api('POST', `/agents/${agent}/runs`, { input: { script: [{ say: 'x' }, { sleep: 2000 }, { say: 'y' }, { finish: 'graceful' }] } })).body;
    const live = readSse(await a.stream(run.id), { ms: 30_000 });
    await untilEvent(a, run.id, (e) => e.type === 'tick.started' && e.tickIndex === 1);
    const beforeStop = await events(a, run.id);
    expect(await a.kill('SIGTERM')).toBe(0);
    const before = await live;
    // Closed by the server (not broken), before the run's end: the client resumes elsewhere.
    expect(before.error).toBeUndefined();
    expect(before.ended).toBe(true);
    expect(before.events.map((f) => f.event)).not.toContain('run.completed');

    const b = await launch('all', env);
    const after = await readSse(await b.stream(run.id, { 'last-event-id': String(seqsOf(before.events).at(-1)) }));
    expect(after.ended).toBe(true);
    const done = await until(b, run.id, (r) => FINAL.includes(r.status));
    expect(done).toMatchObject({ status: 'completed', output: 'graceful' });
    const list = await events(b, run.id);
    checkLog(list, 4);
    expect(list.slice(0, beforeStop.length)).toEqual(beforeStop);
    expect(takeovers(list)).toHaveLength(1);
    // The stopping process wrote nothing for the aborted tick: no tick.completed of tick 1 before the takeover.
    const resumedAt = takeovers(list)[0]!.seq;
    expect(list.filter((e) => e.seq < resumedAt && e.type === 'tick.completed').map((e) => e.tickIndex)).toEqual([0]);
    expect([...seqsOf(before.events), ...seqsOf(after.events)]).toEqual(list.map((e) => e.seq));
  }, 60_000);
});

const postgresCase = databaseCases().find((c) => c.name === 'postgres');

describe.skipIf(!postgresCase)('two control-plane processes on one Postgres', () => {
  const controlPlane = (url: string, lease = LEASE.RUN_LEASE_MS) => launch('control-plane', { DATA_DIR: tempDir('durability-cp'), DATABASE_URL: url, RUN_LEASE_MS: lease });

  async function allFinal(p: PlatformProcess, agent: string, total: number, ms: number): Promise<Run[]> {
    const deadline = Date.now() + ms;
    for (;;) {
      const r = await p.api('GET', `/agents/${agent}/runs?limit=1000`);
      expect(r.status).toBe(200);
      const runs = r.body.data as Run[];
      if (runs.length === total && runs.every((x) => FINAL.includes(x.status))) return runs;
      if (Date.now() > deadline) throw new Error(`after ${ms} ms: ${JSON.stringify(runs.map((x) => x.status))}`);
      await Bun.sleep(200);
    }
  }

  test('50 runs started through both processes: each executes once (one run.started, one tick.completed per tick, no takeover)', async () => {
    const db = await freshDatabase();
    try {
      // Nobody dies here: a lease longer than a loaded machine's stalls keeps spurious takeovers out.
      const [a, b] = await Promise.all([controlPlane(db.url, '5000'), controlPlane(db.url, '5000')]);
      const agent = (await a!.api('POST', '/agents', { name: 'shared', config: { maxActiveRootRuns: 32 } })).body.id;
      const created = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a! : b!).api('POST', `/agents/${agent}/runs`, { input: { script: [{ say: `a${i}` }, { say: `b${i}` }, { finish: i }] } })),
      );
      expect(created.map((r) => r.status)).toEqual(created.map(() => 201));
      const runs = await allFinal(a!, agent, 50, 60_000);
      const byId = new Map(runs.map((r) => [r.id, r]));
      for (const [i, c] of created.entries()) expect(byId.get(c.body.id)).toMatchObject({ status: 'completed', output: i, tickCount: 3 });
      const logs = await Promise.all(created.map((c, i) => events(i % 2 === 0 ? b! : a!, c.body.id)));
      for (const list of logs) {
        checkLog(list, 3);
        expect(count(list, 'run.resumed')).toBe(0);
        for (let tick = 0; tick < 3; tick++) expect(count(list, 'tick.started', tick)).toBe(1);
      }
      // Finished runs hold no lease (the table says; the lease is not part of the API).
      expect((await db.sql`SELECT count(*)::int AS n FROM runs WHERE lease_owner IS NOT NULL`)[0]!.n).toBe(0);
    } finally {
      await Promise.all(started.splice(0).map((p) => p.kill('SIGKILL').catch(() => null)));
      await db.drop();
    }
  }, 90_000);

  test('one process SIGKILLed mid-way: the other takes over exactly the runs it held (run.resumed {takenOver}) and finishes every run', async () => {
    const db = await freshDatabase();
    try {
      const a = await controlPlane(db.url);
      const agent = (await a.api('POST', '/agents', { name: 'survivor', config: { maxActiveRootRuns: 32 } })).body.id;
      // The first 16 start on the only process there is, and sleep long enough to be running on it
      // when it dies. No `finish` step: a crash between a finish tick and run.completed loses the
      // output (findings.test.ts F6); a script that just ends completes with output null either way.
      const script = (i: number) => ({ input: { script: [{ say: `s${i}` }, { sleep: i < 16 ? 8000 : 2000 }, { say: `t${i}` }] } });
      const created: Run[] = [];
      for (let i = 0; i < 16; i++) created.push((await a.api('POST', `/agents/${agent}/runs`, script(i))).body);
      for (const r of created) await until(a, r.id, (x) => x.status === 'running');
      // The lease owner is not part of the API; the table says which process holds a run.
      const [first] = await db.sql<{ lease_owner: string }[]>`SELECT lease_owner FROM runs WHERE id = ${created[0]!.id}`;
      const ownerOfA = first!.lease_owner;
      const b = await controlPlane(db.url);
      for (let i = 16; i < 40; i++) created.push((await (i % 2 === 0 ? a : b).api('POST', `/agents/${agent}/runs`, script(i))).body);
      await Bun.sleep(500);
      // A stream on the survivor of a run the other executes: it sees the other's events, then its own.
      const watched = readSse(await b.stream(created[0]!.id), { ms: 60_000 });
      await Bun.sleep(300);
      // Frozen first, so that what it holds cannot change between the look and the kill.
      a.signal('SIGSTOP');
      const held = await db.sql<{ id: string; lease_owner: string }[]>`SELECT id, lease_owner FROM runs WHERE status = 'running'`;
      const heldByA = new Set(held.filter((r) => r.lease_owner === ownerOfA).map((r) => r.id));
      expect(heldByA.size).toBeGreaterThan(0);
      expect(await a.kill('SIGKILL')).toBeNull();

      const runs = await allFinal(b, agent, 40, 60_000);
      const byId = new Map(runs.map((r) => [r.id, r]));
      for (const r of created) expect(byId.get(r.id)).toMatchObject({ status: 'completed', stopReason: 'completed', output: null, tickCount: 3 });
      const stream = await watched;
      expect(stream.ended).toBe(true);
      expect(stream.events.map((f) => Number(f.id))).toEqual((await events(b, created[0]!.id)).map((e) => e.seq));
      for (const r of created) {
        const list = await events(b, r.id);
        checkLog(list, 3);
        expect(takeovers(list)).toHaveLength(heldByA.has(r.id) ? 1 : 0);
        expect(count(list, 'run.resumed')).toBe(heldByA.has(r.id) ? 1 : 0);
      }
    } finally {
      await Promise.all(started.splice(0).map((p) => p.kill('SIGKILL').catch(() => null)));
      await db.drop();
    }
  }, 90_000);
});
