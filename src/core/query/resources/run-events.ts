// The run-events list (GET /api/v1/agents/runs/{agentRunId}/events, DESIGN §5–6): the events
// and runs tables as the engine sees them, and the resource with every dynamic feature on.
// The route passes scope {field: 'runId', op: 'eq', value: runId} and a `runs` table scope.
import { sql } from 'drizzle-orm';
import { defineResource, defineTable } from '../model/index.ts';
import { fieldsOf, tableName } from '../index.ts';
import { pgTables as pg } from '../../db/schema/index.ts';

const runsTable = defineTable({
  name: tableName(pg.runs),
  key: 'id',
  fields: fieldsOf(pg.runs, ['id', 'agentId', 'workspaceId', 'rootRunId', 'parentRunId', 'status', 'stopReason', 'input', 'createdBy', 'createdAt', 'startedAt', 'endedAt', 'tickCount'], { input: { jsonPaths: true } }),
});

const eventsTable = defineTable({
  name: tableName(pg.events),
  key: 'id',
  // `seq` is per run, and every route reads one run's events (scope runId = the run).
  unique: ['seq'],
  // Every event is written with its data, though the column allows NULL: listed as not nullable.
  fields: fieldsOf(pg.events, ['id', 'runId', 'rootRunId', 'parentRunId', 'seq', 'type', 'tickIndex', 'actor', 'data', 'createdAt'], { data: { nullable: false, jsonPaths: true } }),
  relations: {
    run: { table: runsTable, from: 'runId', to: 'id', fields: ['status', 'agentId'] },
  },
});

export const runEventsResource = defineResource({
  table: eventsTable,
  features: { distinct: true, projection: true, joins: true, groupBy: true, cast: true, cte: true },
  joinable: [runsTable],
  cteTables: [eventsTable, runsTable],
  aggregates: ['count', 'min', 'max'],
  expressions: {
    /** Lifecycle events of the run itself (run.queued, run.started, …). */
    isRunEvent: { type: 'boolean', build: (field) => sql`${field('type')} LIKE 'run.%'` },
    /** The tool of tool-call events. */
    toolName: { type: 'string', build: (field) => field('data.toolName') },
  },
  defaultSort: [{ field: 'seq', dir: 'asc' }],
  // Events are listed within one run, where seq is unique: the tiebreak that keeps
  // (run_id, seq) index order.
  tiebreak: ['seq'],
});
