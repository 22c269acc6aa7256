// The rows a completed run leaves (its run row, its events, its memory record), copied from runs
// the engine executed and inserted again with plain INSERT loops: the baseline of bench/runs.ts.
import { asc, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../src/core/db/index.ts';

type RunRow = Database['t']['runs']['$inferInsert'];
type EventRow = Database['t']['events']['$inferInsert'];
type MemoryRow = Database['t']['agentMemory']['$inferInsert'];

export interface RunRows {
  run: RunRow;
  /** In seq order; the first is run.queued. */
  events: EventRow[];
  memory: MemoryRow | null;
}

/** The rows of one completed run of `agentId`, as the engine left them. */
export async function runTemplate(db: Database, agentId: string): Promise<RunRows> {
  const { runs, events, agentMemory } = db.t;
  return db.read(async (q) => {
    const [run] = await q.select().from(runs).where(eq(runs.agentId, agentId)).limit(1);
    if (!run || run.status !== 'completed') throw new Error(`no completed run of agent ${agentId}`);
    const rows = await q.select().from(events).where(eq(events.runId, run.id)).orderBy(asc(events.seq));
    const [memory] = await q.select().from(agentMemory).where(inArray(agentMemory.runId, [run.id]));
    return { run, events: rows, memory: memory ?? null };
  });
}

/** Fresh copies of the template's rows: a new run of `agentId` with new ids, stamped now. */
function copyOf(template: RunRows, agentId: string): RunRows {
  const id = crypto.randomUUID();
  const now = new Date();
  return {
    run: { ...template.run, id, rootRunId: id, agentId, createdAt: now, startedAt: now, endedAt: now },
    events: template.events.map((e) => ({ ...e, id: crypto.randomUUID(), runId: id, rootRunId: id, createdAt: now })),
    memory: template.memory && { ...template.memory, id: crypto.randomUUID(), agentId, runId: id, createdAt: now },
  };
}

/**
 * Inserts the rows of `n` runs through the platform's Database, `loops` runs at a time (as the
 * engine executes `maxActiveRootRuns` at once). `per: 'event'`: the run row with its first event,
 * then a transaction for each further event (the memory record with memory.stored), one more
 * transaction per event than the engine's writes need; `per: 'run'`: one transaction per run.
 */
export async function insertRunRows(db: Database, template: RunRows, agentId: string, n: number, loops: number, per: 'event' | 'run'): Promise<void> {
  const { runs, events, agentMemory } = db.t;
  let next = 0;
  const insertOne = async () => {
    const rows = copyOf(template, agentId);
    const [first, ...rest] = rows.events;
    const memoryWith = (e: EventRow) => (rows.memory && e.type === 'memory.stored' ? rows.memory : null);
    if (per === 'run') {
      await db.write(async (q) => {
        await q.insert(runs).values(rows.run);
        for (const e of rows.events) await q.insert(events).values(e);
        if (rows.memory) await q.insert(agentMemory).values(rows.memory);
      });
      return;
    }
    await db.write(async (q) => {
      await q.insert(runs).values(rows.run);
      if (first) await q.insert(events).values(first);
    });
    for (const e of rest) {
      await db.write(async (q) => {
        const memory = memoryWith(e);
        if (memory) await q.insert(agentMemory).values(memory);
        await q.insert(events).values(e);
      });
    }
  };
  const loop = async () => {
    while (next < n) {
      next++;
      await insertOne();
    }
  };
  await Promise.all(Array.from({ length: loops }, loop));
}
