// The agent run engine (DESIGN §5, src/runs/), on a SQLite file (WAL, the embedded default) and on
// Postgres, each against plain INSERT loops of the same rows measured in the same run:
//  1. runs/s: N scripted runs of 3 short steps started through the API (app.handle, all at once)
//     on an agent with maxActiveRootRuns 32, until all have completed; baseline: the rows those
//     runs leave (run row, events, memory record) inserted by 32 loops, a transaction per event,
//     and a transaction per run; then a lone run's time from POST to completed, one at a time,
//     against one run's rows inserted a transaction per event;
//  2. events appended/s by one writer: RunStore.appendMany and the engine's fenced write
//     (EngineStore.write) against an INSERT loop of the same event rows;
//  3. SSE fan-out: subscribers over real HTTP (in another process) on one run to which an event
//     is appended every 10 ms; time from the append's commit to each subscriber's read of it,
//     against the same subscribers fed pre-made frames by a bare stream at the same commits.
//
//   node_modules/.bin/bun bench/runs.ts   [--runs=128] [--rounds=3] [--subscribers=100] [--events=150] [--no-postgres]
//   POSTGRES_URL=postgres://… to choose the server (default: the local test database)
import { loadavg } from 'node:os';
import { and, count, eq, sql } from 'drizzle-orm';
import type { NewEvent } from '../src/runs/record.ts';
import { RunStore } from '../src/runs/store.ts';
import { EngineStore } from '../src/runs/engine/store.ts';
import { openDatabase, type Database } from '../src/core/db/index.ts';
import { ADMIN_KEY, startInProcessPlatform, type BenchDatabase, type BenchPlatform } from './lib/inprocess-platform.ts';
import { insertRunRows, runTemplate } from './lib/run-rows.ts';
import { BareFanOut, sharedClock, subscribe } from './lib/sse-fan-out.ts';
import { median, percentile, throughputAsync } from './lib/timing.ts';
import { perSecond, table } from './lib/table.ts';

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const RUNS = Number(arg('runs', '128'));
const ROUNDS = Number(arg('rounds', '3'));
const SUBSCRIBERS = Number(arg('subscribers', '100'));
const EVENTS = Number(arg('events', '150'));
const EVENT_INTERVAL_MS = 10;
const SSE_ROUNDS = Math.max(1, ROUNDS - 1);
const ACTIVE = 32;
const LONE_RUNS = 12;
const BATCH = 64;
const POSTGRES_URL = (process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test') as `postgres://${string}`;
const DATABASES: BenchDatabase[] = [{ name: 'SQLite file', url: 'sqlite' }, ...(process.argv.includes('--no-postgres') ? [] : [{ name: 'Postgres', url: POSTGRES_URL }])];
const SCRIPT = [{ say: 'a' }, { say: 'b' }, { finish: 1 }];
const FINAL = ['completed', 'failed', 'cancelled', 'timed_out'];
/** Progress on stderr, so that stdout holds only the tables. */
const progress = (text: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${text}\n`);
const message = (i: number): NewEvent => ({ type: 'message.created', actor: 'agent', tickIndex: 0, data: { role: 'assistant', text: 'A short reply of about forty characters.', i } });

/** Runs of `agentId` in one of `statuses`; through `db.all`, which the query counts leave out. */
async function runsIn(db: Database, agentId: string, statuses: readonly string[]): Promise<number> {
  const rows = await db.all(sql`SELECT count(*) AS n FROM runs WHERE agent_id = ${agentId} AND status IN (${sql.join(statuses.map((s) => sql`${s}`), sql`, `)})`);
  return Number(rows[0]?.n ?? 0);
}

// --- 1. Runs per second --------------------------------------------------------------------------

async function runsPerSecond({ platform, call, counts }: BenchPlatform, database: string): Promise<{ throughput: string[][]; lone: string[][]; eventsPerRun: number }> {
  const { db } = platform;
  const engineAgent: string = (await call('POST', '/api/v1/agents', { name: 'bench-runs', config: { maxActiveRootRuns: ACTIVE } })).id;
  const plainAgent: string = (await call('POST', '/api/v1/agents', { name: 'bench-inserts' })).id;
  let started = 0;
  /** Starts `n` runs at once through the API and resolves when all have ended; the ms until every POST was answered. */
  const engineRound = async (n: number, pollMs = 5) => {
    const t0 = performance.now();
    await Promise.all(Array.from({ length: n }, () => call('POST', `/api/v1/agents/${engineAgent}/runs`, { input: { script: SCRIPT } })));
    const created = performance.now() - t0;
    started += n;
    while ((await runsIn(db, engineAgent, FINAL)) < started) await Bun.sleep(pollMs);
    return created;
  };
  progress(`${database}: runs/s, warm-up`);
  await engineRound(ACTIVE); // warm-up, and the runs whose rows the baselines copy
  const template = await runTemplate(db, engineAgent);
  const eventsPerRun = template.events.length;

  const contenders: { name: string; round: () => Promise<number | void> }[] = [
    { name: `INSERT loop, a transaction per event`, round: () => insertRunRows(db, template, plainAgent, RUNS, ACTIVE, 'event') },
    { name: 'INSERT loop, a transaction per run', round: () => insertRunRows(db, template, plainAgent, RUNS, ACTIVE, 'run') },
    { name: 'engine: POST → 3 ticks → completed', round: () => engineRound(RUNS) },
  ];
  const samples = new Map(contenders.map((c) => [c.name, { rate: [] as number[], created: [] as number[], writes: [] as number[], reads: [] as number[] }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of round % 2 === 0 ? contenders : [...contenders].reverse()) {
      progress(`${database}: runs/s, round ${round + 1}: ${c.name}`);
      counts.reads = counts.writes = 0;
      const t0 = performance.now();
      const created = await c.round();
      const s = samples.get(c.name)!;
      s.rate.push(RUNS / ((performance.now() - t0) / 1000));
      if (created) s.created.push(RUNS / (created / 1000));
      s.writes.push(counts.writes / RUNS);
      s.reads.push(counts.reads / RUNS);
    }
  }

  // One run at a time: how promptly a lone run goes from POST to completed.
  progress(`${database}: lone runs`);
  const lone = { engine: [] as number[], insert: [] as number[] };
  for (let i = 0; i < LONE_RUNS; i++) {
    let t0 = performance.now();
    await engineRound(1, 1);
    lone.engine.push(performance.now() - t0);
    t0 = performance.now();
    await insertRunRows(db, template, plainAgent, 1, 1, 'event');
    lone.insert.push(performance.now() - t0);
  }
  const notCompleted = (await runsIn(db, engineAgent, FINAL)) - (await runsIn(db, engineAgent, ['completed']));
  if (notCompleted > 0) throw new Error(`${notCompleted} engine runs ended otherwise than completed`);

  const [byEvent, byRun] = contenders.map((c) => median(samples.get(c.name)!.rate)) as [number, number];
  const throughput = contenders.map((c) => {
    const s = samples.get(c.name)!;
    const rate = median(s.rate);
    const created = s.created.length > 0 ? median(s.created).toFixed(1) : '–';
    return [`${database} · ${c.name}`, rate.toFixed(1), perSecond(rate * eventsPerRun), `${(rate / byEvent).toFixed(2)}×`, `${(rate / byRun).toFixed(2)}×`, created, median(s.writes).toFixed(1), median(s.reads).toFixed(1)];
  });
  const loneBase = median(lone.insert);
  const loneRows = (name: string, ms: number[]) => [`${database} · ${name}`, median(ms).toFixed(1), percentile(ms, 0.9).toFixed(1), `${(median(ms) / loneBase).toFixed(1)}×`];
  return { eventsPerRun, throughput, lone: [loneRows(`INSERT loop, a transaction per event (baseline)`, lone.insert), loneRows('engine: POST → 3 ticks → completed', lone.engine)] };
}

// --- 2. Events appended per second ---------------------------------------------------------------

async function eventsPerSecond({ platform, call }: BenchPlatform, database: string): Promise<string[][]> {
  const { db, runs: store } = platform;
  const { runs, events } = db.t;
  const agentId: string = (await call('POST', '/api/v1/agents', { name: 'bench-events' })).id;
  const owner = 'bench-writer';
  const engineStore = new EngineStore(db, store, owner, 3_600_000);
  /** A running run leased to `owner` for an hour: the engine's scans leave it alone. */
  const newRun = async () => {
    const id = crypto.randomUUID();
    const now = new Date();
    await db.write((q) =>
      q.insert(runs).values({
        id, agentId, workspaceId: crypto.randomUUID(), rootRunId: id, status: 'running', createdBy: 'bench', createdAt: now, startedAt: now,
        tickCount: 0, eventSeq: 0, leaseOwner: owner, leaseExpiresAt: new Date(Date.now() + 3_600_000),
      }),
    );
    return id;
  };
  const plainRun = await newRun();
  let plainSeq = 0;
  const row = () => ({ ...message(plainSeq), id: crypto.randomUUID(), runId: plainRun, rootRunId: plainRun, parentRunId: null, seq: ++plainSeq, createdAt: new Date() });
  const [appendRun, appendManyRun, engineRun] = [await newRun(), await newRun(), await newRun()];
  const batch = Array.from({ length: BATCH }, (_, i) => message(i));

  const single = [
    { name: 'INSERT, an event per transaction', batch: async () => (await db.write((q) => q.insert(events).values(row())), 1) },
    { name: 'RunStore.appendMany, an event per call', batch: async () => (await store.appendMany(appendRun, [message(0)]), 1) },
    { name: 'EngineStore.write, an event per call (fenced)', batch: async () => (await engineStore.write(engineRun, [message(0)]), 1) },
  ];
  const batched = [
    { name: `INSERT loop, ${BATCH} events per transaction`, batch: async () => (await db.write(async (q) => { for (let i = 0; i < BATCH; i++) await q.insert(events).values(row()); }), BATCH) },
    { name: `RunStore.appendMany, ${BATCH} events per call`, batch: async () => (await store.appendMany(appendManyRun, batch), BATCH) },
  ];
  const out: string[][] = [];
  for (const group of [single, batched]) {
    progress(`${database}: events/s, ${group.map((c) => c.name).join('; ')}`);
    const rates = await throughputAsync(group, { rounds: ROUNDS, roundMs: 400, warmupMs: 200 });
    const baseline = rates.get(group[0]!.name)!;
    for (const c of group) out.push([`${database} · ${c.name}`, perSecond(rates.get(c.name)!), `${(rates.get(c.name)! / baseline).toFixed(2)}×`]);
  }
  return out;
}

// --- 3. SSE fan-out ------------------------------------------------------------------------------

type Delivery = 'bare' | 'notify' | 'poll';

async function fanOut(bench: BenchPlatform, database: string): Promise<string[][]> {
  const { platform, call, counts } = bench;
  const { db } = platform;
  const { events } = db.t;
  const bare = new BareFanOut('/bench/bare-stream');
  const server = bench.serve(bare.handle);
  // Another connection to the same database, as another control-plane process has: its commits
  // reach this process's streams only through their poll.
  const location = db.location!;
  const otherDb = await openDatabase(location.url, location.schema ? { schema: location.schema } : {});
  const otherStore = new RunStore(otherDb);
  const agentId: string = (await call('POST', '/api/v1/agents', { name: 'bench-sse', config: { maxActiveRootRuns: ACTIVE } })).id;
  const encoder = new TextEncoder();

  const round = async (delivery: Delivery, subscribers: number) => {
    // A run whose one tick sleeps a minute: the engine writes nothing to it while the bench appends.
    const runId: string = (await call('POST', `/api/v1/agents/${agentId}/runs`, { input: { script: [{ sleep: 60_000 }] } })).id;
    while ((await db.read((q) => q.select({ n: count() }).from(events).where(and(eq(events.runId, runId), eq(events.type, 'tick.started')))))[0]?.n !== 1) await Bun.sleep(5);
    const url = delivery === 'bare' ? server.origin + bare.path : `${server.origin}/api/v1/agents/runs/${runId}/events/stream`;
    const subscribed = await subscribe(url, subscribers, ADMIN_KEY);
    await Bun.sleep(100); // every stream past its first page

    const committed: number[] = [];
    const frames = Array.from({ length: EVENTS }, (_, i) => encoder.encode(`id: ${i}\nevent: message.created\ndata: ${JSON.stringify({ id: crypto.randomUUID(), runId, rootRunId: runId, parentRunId: null, seq: i, ...message(i), createdAt: new Date().toISOString() })}\n\n`));
    const store = delivery === 'poll' ? otherStore : platform.runs;
    counts.reads = 0;
    const t0 = performance.now();
    for (let i = 0; i < EVENTS; i++) {
      const wait = t0 + i * EVENT_INTERVAL_MS - performance.now();
      if (wait > 0) await Bun.sleep(wait);
      await store.appendMany(runId, [message(i)]);
      committed[i] = sharedClock();
      if (delivery === 'bare') bare.send(frames[i]!);
    }
    const appendedPerSecond = EVENTS / ((performance.now() - t0) / 1000);
    const readsPerEvent = counts.reads / EVENTS;
    if (delivery === 'bare') bare.end();
    await call('POST', `/api/v1/agents/runs/${runId}/cancel`); // run.cancelled ends the platform's streams
    const arrivals = await subscribed.arrivals();

    // The platform's frames carry the event's seq; the bench's own carry its index.
    const indexOf = new Map<number, number>();
    if (delivery === 'bare') for (let i = 0; i < EVENTS; i++) indexOf.set(i, i);
    else for (const e of await db.read((q) => q.select({ seq: events.seq, data: events.data }).from(events).where(and(eq(events.runId, runId), eq(events.type, 'message.created'))))) indexOf.set(e.seq, (e.data as { i: number }).i);
    const latencies: number[] = [];
    for (const flat of arrivals) {
      if (flat.length !== EVENTS * 2) throw new Error(`a subscriber read ${flat.length / 2} of ${EVENTS} events (${delivery})`);
      for (let k = 0; k < flat.length; k += 2) latencies.push(flat[k + 1]! - committed[indexOf.get(flat[k]!)!]!);
    }
    return { latencies, readsPerEvent, appendedPerSecond };
  };

  // Each platform delivery is judged against the bare stream with as many subscribers.
  const contenders: { name: string; delivery: Delivery; subscribers: number }[] = [
    { name: 'bare stream, pre-made frames, 1 subscriber (baseline)', delivery: 'bare', subscribers: 1 },
    { name: 'platform SSE, 1 subscriber', delivery: 'notify', subscribers: 1 },
    { name: `bare stream, pre-made frames, ${SUBSCRIBERS} subscribers (baseline)`, delivery: 'bare', subscribers: SUBSCRIBERS },
    { name: `platform SSE, ${SUBSCRIBERS} subscribers`, delivery: 'notify', subscribers: SUBSCRIBERS },
    { name: `platform SSE, ${SUBSCRIBERS} subscribers, appended by another connection`, delivery: 'poll', subscribers: SUBSCRIBERS },
  ];
  await round('notify', 10); // warm-up
  const samples = new Map(contenders.map((c) => [c.name, { latencies: [] as number[], reads: [] as number[], appended: [] as number[] }]));
  for (let r = 0; r < SSE_ROUNDS; r++) {
    for (const c of r % 2 === 0 ? contenders : [...contenders].reverse()) {
      progress(`${database}: SSE, round ${r + 1}: ${c.name}`);
      const { latencies, readsPerEvent, appendedPerSecond } = await round(c.delivery, c.subscribers);
      const s = samples.get(c.name)!;
      s.latencies.push(...latencies);
      s.reads.push(readsPerEvent);
      s.appended.push(appendedPerSecond);
    }
  }
  server.stop();
  await otherDb.close();

  const quantiles = (latencies: number[]) => [0.5, 0.9, 0.99, 1].map((p) => percentile(latencies, p)) as [number, number, number, number];
  return contenders.map((c) => {
    const s = samples.get(c.name)!;
    const [p50, p90, p99, max] = quantiles(s.latencies);
    const baseline = contenders.find((b) => b.delivery === 'bare' && b.subscribers === c.subscribers)!;
    const [base50, , base99] = quantiles(samples.get(baseline.name)!.latencies);
    return [`${database} · ${c.name}`, p50.toFixed(2), p90.toFixed(2), p99.toFixed(2), max.toFixed(1), `${(p50 / base50).toFixed(1)}×`, `${(p99 / base99).toFixed(1)}×`, median(s.reads).toFixed(1), median(s.appended).toFixed(0)];
  });
}

// --- Main ----------------------------------------------------------------------------------------

const tables = { runs: [] as string[][], lone: [] as string[][], events: [] as string[][], sse: [] as string[][] };
const eventsPerRun = new Set<number>();
const loadBefore = loadavg();
const t0 = performance.now();
for (const database of DATABASES) {
  let bench: BenchPlatform;
  try {
    bench = await startInProcessPlatform(database);
  } catch (error) {
    console.error(`${database.name} unavailable (${String(error)}): skipped`);
    continue;
  }
  try {
    const { throughput, lone, eventsPerRun: n } = await runsPerSecond(bench, database.name);
    eventsPerRun.add(n);
    tables.runs.push(...throughput);
    tables.lone.push(...lone);
    tables.events.push(...(await eventsPerSecond(bench, database.name)));
    tables.sse.push(...(await fanOut(bench, database.name)));
  } finally {
    await bench.close();
  }
}
const loadAfter = loadavg();

console.log(`Runs: ${RUNS} runs of ${JSON.stringify(SCRIPT)} per contender per round, started at once, maxActiveRootRuns ${ACTIVE}; each leaves a run row, ${[...eventsPerRun].join('/')} events and a memory record; ${ROUNDS} interleaved rounds, medians; Bun ${Bun.version}`);
console.log(table(['database · contender', 'runs/s', 'events/s', '× per-event INSERT', '× per-run INSERT', 'created/s', 'transactions/run', 'reads/run'], tables.runs));
console.log(`\nA lone run: ${LONE_RUNS} one after another, ms from the POST to completed (polled every 1 ms) against one run's rows inserted a transaction per event`);
console.log(table(['database · contender', 'median ms', 'p90 ms', '× baseline'], tables.lone));
console.log(`\nEvents appended by one writer, ${ROUNDS} interleaved rounds of 400 ms, medians`);
console.log(table(['database · writer', 'events/s', '× INSERT'], tables.events));
console.log(`\nSSE: ${EVENTS} events appended ${EVENT_INTERVAL_MS} ms apart to one run, commit → read by each subscriber (another process, real HTTP), ${SSE_ROUNDS} interleaved rounds pooled`);
console.log(table(['database · delivery', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'p50 × baseline', 'p99 × baseline', 'reads/event', 'appended/s'], tables.sse));
console.log(`\n${((performance.now() - t0) / 1000).toFixed(0)} s; load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after`);
