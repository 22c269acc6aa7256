// GET /agents/{agentId}/runs and GET /agents/{agentId}/memory through the list engine (DESIGN §5–6).
// The runs list filters and sorts on the fields DESIGN names and answers whole run records; with
// `fields` (or groupBy) it answers what was asked for.
import type { Database } from '../core/db/index.ts';
import { defineResource, defineTable, fieldsOf, parseListQueryPartly, runList, tableName, type ListResult } from '../core/query/index.ts';
import { pgTables as pg } from '../core/db/schema/index.ts';
import { runJson } from './record.ts';
import type { RunStore } from './store.ts';

const runsResource = defineResource({
  table: defineTable({
    name: tableName(pg.runs),
    key: 'id',
    fields: fieldsOf(pg.runs, ['id', 'agentId', 'status', 'stopReason', 'parentRunId', 'rootRunId', 'mode', 'tickCount', 'createdBy', 'createdAt', 'startedAt', 'endedAt']),
  }),
  features: { distinct: true, projection: true, groupBy: true, cast: true },
  aggregates: ['count', 'min', 'max'],
  defaultSort: [{ field: 'createdAt', dir: 'asc' }],
});

const memoryResource = defineResource({
  table: defineTable({
    name: tableName(pg.agentMemory),
    key: 'id',
    fields: fieldsOf(pg.agentMemory, ['id', 'agentId', 'runId', 'summary', 'createdAt']),
  }),
  features: { projection: true },
  defaultSort: [{ field: 'createdAt', dir: 'desc' }],
});

export async function listRuns(db: Database, runs: RunStore, agentId: string, search: string, debugAllowed: boolean): Promise<ListResult> {
  const query = parseListQueryPartly(search);
  const result = await runList(db.runner, runsResource, query, { scope: { field: 'agentId', op: 'eq', value: agentId }, debugAllowed });
  const plain = !query.fields && !query.groupBy && !query.distinct;
  if (!plain) return result;
  const ids = result.data.map((row) => String((row as { id: unknown }).id));
  const records = new Map((await runs.many(ids)).map((r) => [r.id, r]));
  const positions = result.data.some((row) => (row as { status?: unknown }).status === 'queued') ? await runs.queuePositions(agentId) : new Map<string, number>();
  return { ...result, data: ids.map((id) => records.get(id)).filter((r) => r !== undefined).map((r) => runJson(r, r.parentRunId === null ? (positions.get(r.id) ?? null) : null)) };
}

export function listMemory(db: Database, agentId: string, search: string, debugAllowed: boolean): Promise<ListResult> {
  return runList(db.runner, memoryResource, parseListQueryPartly(search), { scope: { field: 'agentId', op: 'eq', value: agentId }, debugAllowed });
}
