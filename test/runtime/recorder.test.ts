// The invocation recorder: every record becomes one audit row and counts once in the statistics,
// whichever writer stores it; a failed write loses nothing.
import { afterAll, describe, expect, test } from 'bun:test';
import { readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../../src/core/db/index.ts';
import { silentLogger } from '../../src/core/log.ts';
import { readStatistics } from '../../src/core/statistics/statistics.ts';
import { createRecorder, InvocationRecorder, type InvocationRecord } from '../../runtime/recorder/index.ts';
import { BatchBuilder, decodeBatch } from '../../runtime/recorder/batch.ts';
import { claimSpilled, spillBatches } from '../../runtime/recorder/spill.ts';
import type { InvocationWriter } from '../../runtime/recorder/types.ts';
import { InlineWriter } from '../../runtime/recorder/writers.ts';
import { databaseCases, dropPostgresSchema, POSTGRES_URL } from '../helpers/databases.ts';
import { tempDir } from '../helpers/temp.ts';

const record = (endpointId: string, status: number, durationMs: number): InvocationRecord => ({
  at: Date.now(), endpointId, workspaceId: crypto.randomUUID(), initiatorId: crypto.randomUUID(), executionAccountId: null,
  status, durationMs, oid: `oid-${crypto.randomUUID()}`, executionId: crypto.randomUUID(),
});

const cases: { name: string; open: () => Promise<Database>; cleanup?: () => Promise<void> }[] = [
  { name: 'in-memory SQLite (inline writer)', open: () => openDatabase('sqlite::memory:') },
  { name: 'SQLite file (writer thread)', open: () => openDatabase(`sqlite:${join(tempDir('rec'), 'p.db')}`) },
];
const pg = databaseCases().find((c) => c.name === 'postgres');
if (pg) cases.push({ name: 'Postgres (writer thread)', open: () => openDatabase(POSTGRES_URL, { schema: pg.postgresSchema! }), cleanup: () => dropPostgresSchema(pg.postgresSchema) });
afterAll(async () => {
  for (const c of cases) await c.cleanup?.();
});

describe.each(cases)('$name', ({ open }) => {
  test('records become audit rows and statistics, exactly once', async () => {
    const db = await open();
    const recorder = await createRecorder(db, silentLogger);
    const a = crypto.randomUUID();
    const b = crypto.randomUUID();
    const sent: InvocationRecord[] = [];
    for (let i = 0; i < 300; i++) {
      const r = record(i % 3 === 0 ? b : a, i % 10 === 0 ? 500 : 200, i % 7);
      // Execution accounts and incoming oids (any of [A-Za-z0-9._:-]) vary from row to row.
      if (i % 4 === 0) r.executionAccountId = crypto.randomUUID();
      if (i % 5 === 0) r.oid = `trace.${i}:span_${i}-x`;
      sent.push(r);
    }
    for (const r of sent) recorder.record(r);
    await recorder.flush();
    sent.push(record(a, 404, 1));
    recorder.record(sent.at(-1)!);
    await recorder.close();
    const sa = await readStatistics(db, a);
    const sb = await readStatistics(db, b);
    expect(sa.invocations + sb.invocations).toBe(301);
    expect(sb.invocations).toBe(100);
    expect(sa.byStatusClass['4xx']).toBe(1);
    expect(sa.byStatusClass['5xx'] + sb.byStatusClass['5xx']).toBe(30);
    // Every duration was 0–6 ms: the latency buckets hold them all, at or under the 10 ms bound.
    for (const st of [sa, sb]) {
      expect(st.latencyMs.p50).toBeGreaterThan(0);
      expect(st.latencyMs.p99).toBeLessThanOrEqual(10);
    }
    const audit = await db.read((q) => q.select().from(db.t.audit));
    expect(audit.filter((r) => r.kind === 'invocation')).toHaveLength(301);
    expect(new Set(audit.map((r) => r.id)).size).toBe(301);
    // Every field lands in its own column (the SQLite writer binds them by position).
    const byExecution = new Map(audit.map((r) => [r.executionId, r]));
    for (const r of sent) {
      expect(byExecution.get(r.executionId)).toMatchObject({
        at: new Date(r.at), kind: 'invocation', action: 'endpoint.invoke', actorId: r.initiatorId, executionAccountId: r.executionAccountId,
        resourceType: 'endpoint', resourceId: r.endpointId, workspaceId: r.workspaceId, status: r.status, durationMs: r.durationMs, oid: r.oid,
      });
    }
    await db.close();
  });

  test('with a retention, invocation rows older than it are deleted, chunk by chunk; newer ones and change rows stay', async () => {
    const db = await open();
    const day = 86_400_000;
    const recorder = await createRecorder(db, silentLogger, undefined, 30 * day);
    const endpoint = crypto.randomUUID();
    const now = Date.now();
    // 12,001 old rows: more than two of the recorder's 5,000-row statements.
    for (let i = 0; i < 12_001; i++) recorder.record({ ...record(endpoint, 200, 1), at: now - 40 * day + i });
    for (let i = 0; i < 7; i++) recorder.record({ ...record(endpoint, 200, 1), at: now - day });
    await recorder.flush();
    await db.write((q) => q.insert(db.t.audit).values({
      id: crypto.randomUUID(), at: new Date(now - 400 * day), kind: 'change', action: 'endpoint.create', resourceType: 'endpoint', resourceId: endpoint,
    }));
    expect(await recorder.prune(now)).toBe(12_001);
    expect(await recorder.prune(now)).toBe(0);
    const left = (await db.read((q) => q.select().from(db.t.audit))).filter((r) => r.resourceId === endpoint);
    expect(left.filter((r) => r.kind === 'invocation').map((r) => r.at.getTime())).toEqual(Array(7).fill(now - day));
    expect(left.filter((r) => r.kind === 'change')).toHaveLength(1);
    // The statistics are not the audit trail: every invocation still counts.
    expect((await readStatistics(db, endpoint)).invocations).toBe(12_008);
    await recorder.close();
    await db.close();
  }, 30_000);
});

test('a failed write keeps every record for the next attempt', async () => {
  const db = await openDatabase('sqlite::memory:');
  const inline = new InlineWriter(db);
  let failures = 1;
  const flaky: InvocationWriter = {
    write: async (records) => {
      if (failures-- > 0) throw new Error('database unavailable');
      return inline.write(records);
    },
    prune: async () => 0,
    close: async () => {},
  };
  const recorder = new InvocationRecorder(flaky, silentLogger, 60_000);
  const id = crypto.randomUUID();
  for (let i = 0; i < 10; i++) recorder.record(record(id, 200, 1));
  await recorder.flush();
  expect((await readStatistics(db, id)).invocations).toBe(0);
  await recorder.close();
  expect((await readStatistics(db, id)).invocations).toBe(10);
  await db.close();
});

test('a partial write keeps the rest, in order, and nothing counts twice', async () => {
  const db = await openDatabase('sqlite::memory:');
  const inline = new InlineWriter(db);
  let partial = true;
  const halfway: InvocationWriter = {
    write: async (batch) => {
      if (!partial) return inline.write(batch);
      partial = false;
      // Stores the first 4 records, then reports the failure by the count.
      const head = new BatchBuilder();
      for (const r of decodeBatch(batch).slice(0, 4)) head.append(r);
      return inline.write(head.seal());
    },
    prune: async () => 0,
    close: async () => {},
  };
  const recorder = new InvocationRecorder(halfway, silentLogger, 60_000);
  const id = crypto.randomUUID();
  const sent = Array.from({ length: 10 }, (_, i) => record(id, 200 + i, i));
  for (const r of sent) recorder.record(r);
  await recorder.flush();
  expect((await readStatistics(db, id)).invocations).toBe(4);
  await recorder.close();
  expect((await readStatistics(db, id)).invocations).toBe(10);
  const rows = await db.read((q) => q.select().from(db.t.audit).orderBy(db.t.audit.seq));
  expect(rows.map((r) => r.executionId)).toEqual(sent.map((r) => r.executionId));
  await db.close();
});

test('on the writer thread, a batch that could not be stored comes back and is written later, once', async () => {
  // The bytes cross to the writer by transfer; when a write fails they must come back with the reply.
  const db = await openDatabase(`sqlite:${join(tempDir('rec'), 'p.db')}`);
  const recorder = await createRecorder(db, silentLogger);
  const id = crypto.randomUUID();
  const sent = Array.from({ length: 3000 }, (_, i) => record(id, 200 + (i % 3), i % 5));
  await db.all(sql`ALTER TABLE endpoint_stats RENAME TO endpoint_stats_away`);
  for (const r of sent) recorder.record(r);
  await recorder.flush();
  expect(await db.all(sql`SELECT count(*) AS n FROM audit WHERE kind = 'invocation'`)).toEqual([{ n: 0 }]);
  await db.all(sql`ALTER TABLE endpoint_stats_away RENAME TO endpoint_stats`);
  await recorder.close();
  expect((await readStatistics(db, id)).invocations).toBe(3000);
  const rows = await db.read((q) => q.select().from(db.t.audit).orderBy(db.t.audit.seq));
  expect(rows.map((r) => r.executionId)).toEqual(sent.map((r) => r.executionId));
  await db.close();
});

describe('records the database cannot take', () => {
  const down: InvocationWriter = {
    write: async () => {
      throw new Error('database unavailable');
    },
    prune: async () => 0,
    close: async () => {},
  };

  test('are kept in a spill file at shutdown and written, once, by the next recorder started on the directory', async () => {
    const dir = tempDir('spill');
    const id = crypto.randomUUID();
    const sent = Array.from({ length: 3000 }, (_, i) => record(id, 200 + (i % 3), i % 5));
    const first = new InvocationRecorder(down, silentLogger, 60_000, { spillDir: dir });
    for (const r of sent) first.record(r);
    await first.close();
    expect(readdirSync(dir).filter((n) => n.endsWith('.jsonl'))).toHaveLength(1);

    const db = await openDatabase('sqlite::memory:');
    const second = await createRecorder(db, silentLogger, dir);
    // Taken over at once (claimed, read, deleted): a process starting now finds nothing to take.
    expect(readdirSync(dir)).toEqual([]);
    await second.close();
    expect((await readStatistics(db, id)).invocations).toBe(3000);
    const rows = await db.read((q) => q.select().from(db.t.audit).orderBy(db.t.audit.seq));
    expect(rows.map((r) => r.executionId)).toEqual(sent.map((r) => r.executionId));
    expect(rows.map((r) => r.at.getTime())).toEqual(sent.map((r) => r.at));
    await db.close();
  });

  test('a database that hangs at shutdown holds close() only for its limit: every record, the one being written included, is spilled', async () => {
    const dir = tempDir('spill');
    const id = crypto.randomUUID();
    let writes = 0;
    // Takes the batch's bytes (as the writer thread does) and never answers.
    const hangs: InvocationWriter = {
      write: (batch) => {
        writes++;
        batch.bytes = new Uint8Array(0);
        return new Promise<number>(() => {});
      },
      prune: async () => 0,
      close: () => new Promise<void>(() => {}),
    };
    const first = new InvocationRecorder(hangs, silentLogger, 60_000, { spillDir: dir, closeWriteLimitMs: 300 });
    const sent = Array.from({ length: 5000 }, (_, i) => record(id, 200, i % 5));
    for (const r of sent.slice(0, 3000)) first.record(r);
    void first.flush(); // a write in flight when shutdown begins
    for (const r of sent.slice(3000)) first.record(r);
    const started = performance.now();
    await first.close();
    expect(performance.now() - started).toBeLessThan(5000);
    expect(writes).toBe(1);

    const db = await openDatabase('sqlite::memory:');
    const next = await createRecorder(db, silentLogger, dir);
    await next.close();
    const rows = await db.read((q) => q.select().from(db.t.audit).orderBy(db.t.audit.seq));
    expect(rows.map((r) => r.executionId).sort()).toEqual(sent.map((r) => r.executionId).sort());
    expect((await readStatistics(db, id)).invocations).toBe(5000);
    await db.close();
  });

  test('beyond the in-memory cap during a long outage, the oldest batches go to a spill file instead of being dropped', async () => {
    const dir = tempDir('spill');
    const id = crypto.randomUUID();
    const recorder = new InvocationRecorder(down, silentLogger, 60_000, { spillDir: dir, maxBuffered: 3000 });
    const sent = Array.from({ length: 10_000 }, (_, i) => record(id, 200, i % 5));
    for (const r of sent) recorder.record(r);
    expect(readdirSync(dir).length).toBeGreaterThan(0);
    await recorder.close();
    const db = await openDatabase('sqlite::memory:');
    const next = await createRecorder(db, silentLogger, dir);
    await next.close();
    const rows = await db.read((q) => q.select().from(db.t.audit).orderBy(db.t.audit.seq));
    // Every record once; the spilled (oldest) ones were written first, as they were claimed first.
    expect(new Set(rows.map((r) => r.executionId))).toEqual(new Set(sent.map((r) => r.executionId)));
    expect(rows).toHaveLength(10_000);
    await db.close();
  });

  test('an unreadable spill file is set aside, not retried forever, and the others are still taken', async () => {
    const dir = tempDir('spill');
    writeFileSync(join(dir, 'unwritten-invocations-1-1-aaaa.jsonl'), 'not json\n');
    const id = crypto.randomUUID();
    const first = new InvocationRecorder(down, silentLogger, 60_000, { spillDir: dir });
    first.record(record(id, 200, 1));
    await first.close();
    const db = await openDatabase('sqlite::memory:');
    await (await createRecorder(db, silentLogger, dir)).close();
    expect((await readStatistics(db, id)).invocations).toBe(1);
    expect(readdirSync(dir)).toEqual(['unwritten-invocations-1-1-aaaa.jsonl.unreadable']);
    await db.close();
  });
});

describe('spill files left by a process that died', () => {
  const batchOf = (n: number) => {
    const builder = new BatchBuilder();
    for (let i = 0; i < n; i++) builder.append(record('00000000-0000-4000-8000-000000000001', 200, 1));
    return builder.seal();
  };
  const deadPid = async () => {
    const child = Bun.spawn([process.execPath, '-e', '0']);
    await child.exited;
    return child.pid;
  };

  test("a claim it never finished reading is taken over; a live process's claim is not", async () => {
    const dir = tempDir('spill-claim');
    const orphan = spillBatches(dir, [batchOf(3)]);
    renameSync(orphan, `${orphan}.claimed-${await deadPid()}`);
    const live = spillBatches(dir, [batchOf(5)]);
    renameSync(live, `${live}.claimed-${process.pid}`);
    const claimed = claimSpilled(dir, 0);
    expect(claimed.files).toBe(1);
    expect(claimed.batches.map((b) => b.count)).toEqual([3]);
    expect(readdirSync(dir)).toEqual([`${live.slice(dir.length + 1)}.claimed-${process.pid}`]);
  });

  test('a draft it never finished writing is removed and reported (the recorder logs its records as lost)', async () => {
    const dir = tempDir('spill-draft');
    const draft = join(dir, 'unwritten-invocations-1-1-abcdef01.jsonl.partial');
    writeFileSync(draft, '{"count":3,"strin');
    const claimed = claimSpilled(dir, 0);
    expect(claimed).toMatchObject({ files: 0, discardedDrafts: [draft] });
    expect(readdirSync(dir)).toEqual([]);
    writeFileSync(draft, '{"count":3,"strin');
    const errors: string[] = [];
    const recorder = await createRecorder(await openDatabase('sqlite::memory:'), { ...silentLogger, error: (m: string) => void errors.push(m) }, dir);
    await recorder.close();
    expect(errors).toEqual([]); // fresh (not stale yet): left for a process that may still be writing it
    expect(readdirSync(dir)).toEqual(['unwritten-invocations-1-1-abcdef01.jsonl.partial']);
  });

  test('spill files of one directory stay under their limit: beyond it the write fails and nothing is left', () => {
    const dir = tempDir('spill-cap');
    const first = spillBatches(dir, [batchOf(100)]);
    const limit = Math.floor(Bun.file(first).size * 1.5);
    expect(() => spillBatches(dir, [batchOf(100)], limit)).toThrow(`the spill files in ${dir} would exceed ${limit} bytes`);
    expect(readdirSync(dir)).toEqual([first.slice(dir.length + 1)]);
    // Room for a smaller one.
    spillBatches(dir, [batchOf(10)], limit);
    expect(readdirSync(dir)).toHaveLength(2);
  });
});
