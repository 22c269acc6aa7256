// Shared fixture data: three runs (R1 with child R2, and an unrelated R3) with their events,
// and a `things` table covering every field type, plus the resource declared over it.
// Values are logical; `seed` converts them to each database's storage form.
import { defineResource, defineTable } from '../../../src/core/query/model/resource.ts';
import { sql } from 'drizzle-orm';
import { type TestDb, schema, store } from './db.ts';

const uuid = (prefix: number, n: number) => `${String(prefix).padStart(8, '0')}-0000-4000-8000-${String(n).padStart(12, '0')}`;
export const R1 = uuid(1, 1);
export const R2 = uuid(1, 2);
export const R3 = uuid(1, 3);
const AGENT_A = uuid(2, 1);
const AGENT_B = uuid(2, 2);
const WS = uuid(3, 1);
const WS_OTHER = uuid(3, 2);
export const O1 = uuid(4, 1);
export const O2 = uuid(4, 2);

const BASE = Date.parse('2024-03-01T10:00:00.000Z');
const STEP = (3 * 60 + 17) * 60_000; // 3h17m: events cross day boundaries

interface EventSpec { type: string; tick: number | null; actor: string; data: Record<string, unknown> }

const R1_EVENTS: EventSpec[] = [
  { type: 'run.queued', tick: null, actor: 'system', data: {} },
  { type: 'run.started', tick: null, actor: 'system', data: {} },
  { type: 'tick.started', tick: 0, actor: 'agent', data: {} },
  { type: 'message.created', tick: 0, actor: 'agent', data: { text: 'Hello 100% sure_thing', role: 'assistant' } },
  { type: 'tool_call.requested', tick: 0, actor: 'agent', data: { toolName: 'search', args: { q: 'cats', limit: 5 }, tags: ['web', 'fast'], n: 5, ok: true } },
  { type: 'tool_call.completed', tick: 0, actor: 'tool', data: { toolName: 'search', n: 7, ok: false, tags: ['web'] } },
  { type: 'tick.completed', tick: 0, actor: 'agent', data: {} },
  { type: 'tick.started', tick: 1, actor: 'agent', data: {} },
  { type: 'tool_call.requested', tick: 1, actor: 'agent', data: { toolName: 'Fetch', args: { url: 'http://x' }, tags: ['net'], n: 2.5, ok: true } },
  { type: 'tool_call.failed', tick: 1, actor: 'tool', data: { toolName: 'Fetch', error: 'timeout', nums: [1, 2, 3] } },
  { type: 'usage.reported', tick: 1, actor: 'system', data: { tokens: 1200, nested: { a: { b: 1 } } } },
  { type: 'run.completed', tick: null, actor: 'system', data: {} },
];
const R2_EVENTS: EventSpec[] = [
  { type: 'run.queued', tick: null, actor: 'system', data: {} },
  { type: 'run.started', tick: null, actor: 'system', data: {} },
  { type: 'message.created', tick: 0, actor: 'agent', data: { text: 'child' } },
  { type: 'run.failed', tick: null, actor: 'system', data: { error: 'boom' } },
];
const R3_EVENTS: EventSpec[] = [
  { type: 'run.queued', tick: null, actor: 'system', data: { secret: 'other-workspace' } },
  { type: 'tool_call.requested', tick: 0, actor: 'agent', data: { toolName: 'search' } },
  { type: 'run.completed', tick: null, actor: 'system', data: {} },
];

export interface LogicalEvent { id: string; runId: string; rootRunId: string; parentRunId: string | null; seq: number; type: string; tickIndex: number | null; actor: string; data: Record<string, unknown>; createdAt: string }

function events(runId: string, root: string, parent: string | null, specs: EventSpec[], idPrefix: number, offset: number): LogicalEvent[] {
  return specs.map((e, i) => ({
    // ids run against seq order, so a sort by id is visibly different from the default
    id: uuid(idPrefix, 100 - i),
    runId, rootRunId: root, parentRunId: parent, seq: i + 1, type: e.type, tickIndex: e.tick, actor: e.actor, data: e.data,
    createdAt: new Date(BASE + (offset + i) * STEP).toISOString(),
  }));
}

export const EVENTS: LogicalEvent[] = [
  ...events(R1, R1, null, R1_EVENTS, 5, 0),
  ...events(R2, R1, R1, R2_EVENTS, 6, 3),
  ...events(R3, R3, null, R3_EVENTS, 7, 1),
];
const R1_SEQS = R1_EVENTS.map((_, i) => i + 1);

const RUNS = [
  { id: R1, agentId: AGENT_A, workspaceId: WS, rootRunId: R1, parentRunId: null, status: 'completed', stopReason: 'done', input: { prompt: 'go' }, createdBy: 'u1', createdAt: '2024-03-01T09:59:00.000Z', startedAt: '2024-03-01T10:00:00.000Z', endedAt: '2024-03-03T00:00:00.000Z', tickCount: 2 },
  { id: R2, agentId: AGENT_A, workspaceId: WS, rootRunId: R1, parentRunId: R1, status: 'failed', stopReason: null, input: null, createdBy: 'u1', createdAt: '2024-03-01T19:00:00.000Z', startedAt: null, endedAt: null, tickCount: 1 },
  { id: R3, agentId: AGENT_B, workspaceId: WS_OTHER, rootRunId: R3, parentRunId: null, status: 'completed', stopReason: 'done', input: { prompt: 'secret' }, createdBy: 'u9', createdAt: '2024-03-01T08:00:00.000Z', startedAt: null, endedAt: null, tickCount: 0 },
];

interface Thing { id: string; ownerId: string | null; name: string; note: string | null; rank: number | null; score: number | null; active: boolean | null; seenAt: string | null; meta: unknown; tags: string[] | null; nums: number[] | null; secret: string }
export const T = (n: number) => uuid(9, n);
const THINGS: Thing[] = [
  { id: T(1), ownerId: O1, name: 'alpha', note: 'A_1%', rank: 1, score: 1.5, active: true, seenAt: '2024-01-01T00:00:00.000Z', meta: { color: 'red', size: 3, flags: { x: true } }, tags: ['a', 'b'], nums: [1, 2, 3], secret: 's1' },
  { id: T(2), ownerId: O1, name: 'Beta', note: 'b\\x', rank: 2, score: -2, active: false, seenAt: '2024-02-15T12:30:00.000Z', meta: { color: 'blue', size: 10 }, tags: ['b'], nums: [2], secret: 's2' },
  { id: T(3), ownerId: null, name: 'gamma', note: null, rank: null, score: null, active: null, seenAt: null, meta: null, tags: [], nums: [], secret: 's3' },
  { id: T(4), ownerId: O2, name: 'delta_x', note: 'x%y', rank: 10, score: 3.25, active: true, seenAt: '2025-06-30T23:59:59.999Z', meta: { color: 'red', size: '3', list: [1, 'a', true] }, tags: ['c', 'a'], nums: [10, 20], secret: 's4' },
  { id: T(5), ownerId: O2, name: 'epsilon', note: 'ÉCOLE', rank: 5, score: 0, active: false, seenAt: '2023-12-31T23:00:00.000Z', meta: { color: null, flags: { x: false } }, tags: ['a'], nums: [5], secret: 's5' },
  { id: T(6), ownerId: O1, name: 'zeta', note: 'zz', rank: 2, score: 2, active: true, seenAt: '2024-02-15T12:30:00.000Z', meta: { color: 'green', list: ['a', 'b'] }, tags: null, nums: null, secret: 's6' },
];

const thingsTable = defineTable({
  name: 'things',
  key: 'id',
  fields: {
    id: { column: 'id', type: 'uuid' },
    ownerId: { column: 'owner_id', type: 'uuid', nullable: true },
    name: { column: 'name', type: 'string' },
    note: { column: 'note', type: 'string', nullable: true },
    rank: { column: 'rank', type: 'integer', nullable: true },
    score: { column: 'score', type: 'number', nullable: true },
    active: { column: 'active', type: 'boolean', nullable: true },
    seenAt: { column: 'seen_at', type: 'timestamp', nullable: true },
    meta: { column: 'meta', type: 'json', nullable: true, jsonPaths: true },
    tags: { column: 'tags', type: 'array', nullable: true },
    nums: { column: 'nums', type: 'array', items: 'integer', nullable: true },
    secret: { column: 'secret', type: 'string', hidden: true },
  },
});

export const thingsResource = defineResource({
  table: thingsTable,
  features: { distinct: true, projection: true, groupBy: true, cast: true },
  aggregates: ['count', 'min', 'max', 'sum', 'avg'],
  expressions: { nameLength: { type: 'integer', build: (f) => sql`length(${f('name')})` } },
  defaultSort: [{ field: 'name', dir: 'asc' }],
});

/** A resource with every dynamic feature off (for "feature disabled" cases). */
export const plainResource = defineResource({ table: thingsTable, defaultSort: [{ field: 'name', dir: 'asc' }] });

/** Creates the tables and loads the fixture. */
export async function seed(db: TestDb): Promise<void> {
  for (const statement of schema(db.name)) await db.exec(statement);
  const d = db.name;
  await db.insert('runs', RUNS.map((r) => ({
    id: r.id, agent_id: r.agentId, workspace_id: r.workspaceId, root_run_id: r.rootRunId, parent_run_id: r.parentRunId, status: r.status,
    stop_reason: r.stopReason, input: store(d, 'json', r.input), created_by: r.createdBy, created_at: store(d, 'ts', r.createdAt),
    started_at: store(d, 'ts', r.startedAt), ended_at: store(d, 'ts', r.endedAt), tick_count: r.tickCount,
  })));
  await db.insert('events', EVENTS.map((e) => ({
    id: e.id, run_id: e.runId, root_run_id: e.rootRunId, parent_run_id: e.parentRunId, seq: e.seq, type: e.type, tick_index: e.tickIndex,
    actor: e.actor, data: store(d, 'json', e.data), created_at: store(d, 'ts', e.createdAt),
  })));
  await db.insert('things', THINGS.map((t) => ({
    id: t.id, owner_id: t.ownerId, name: t.name, note: t.note, rank: t.rank, score: t.score, active: store(d, 'bool', t.active),
    seen_at: store(d, 'ts', t.seenAt), meta: store(d, 'json', t.meta), tags: store(d, 'json', t.tags), nums: store(d, 'json', t.nums), secret: t.secret,
  })));
}
