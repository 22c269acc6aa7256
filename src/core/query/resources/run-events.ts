// The run-events list (GET /api/v1/agents/runs/{agentRunId}/events, DESIGN §5–6): the events
// and runs tables as the engine sees them, and the resource with every dynamic feature on.
// The route passes scope {field: 'runId', op: 'eq', value: runId} and a `runs` table scope.
import { sql } from 'drizzle-orm';
import { defineResource, defineTable } from '../resource.ts';

export const runsTable = defineTable({
  name: 'runs',
  key: 'id',
  fields: {
    id: { column: 'id', type: 'uuid' },
    agentId: { column: 'agent_id', type: 'uuid' },
    workspaceId: { column: 'workspace_id', type: 'uuid' },
    rootRunId: { column: 'root_run_id', type: 'uuid' },
    parentRunId: { column: 'parent_run_id', type: 'uuid', nullable: true },
    status: { column: 'status', type: 'string' },
    stopReason: { column: 'stop_reason', type: 'string', nullable: true },
    input: { column: 'input', type: 'json', nullable: true, jsonPaths: true },
    createdBy: { column: 'created_by', type: 'string' },
    createdAt: { column: 'created_at', type: 'timestamp' },
    startedAt: { column: 'started_at', type: 'timestamp', nullable: true },
    endedAt: { column: 'ended_at', type: 'timestamp', nullable: true },
    tickCount: { column: 'tick_count', type: 'integer' },
  },
});

export const eventsTable = defineTable({
  name: 'events',
  key: 'id',
  // `seq` is per run, and every route reads one run's events (scope runId = the run).
  unique: ['seq'],
  fields: {
    id: { column: 'id', type: 'uuid' },
    runId: { column: 'run_id', type: 'uuid' },
    rootRunId: { column: 'root_run_id', type: 'uuid' },
    parentRunId: { column: 'parent_run_id', type: 'uuid', nullable: true },
    seq: { column: 'seq', type: 'integer' },
    type: { column: 'type', type: 'string' },
    tickIndex: { column: 'tick_index', type: 'integer', nullable: true },
    actor: { column: 'actor', type: 'string' },
    data: { column: 'data', type: 'json', jsonPaths: true },
    createdAt: { column: 'created_at', type: 'timestamp' },
  },
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
