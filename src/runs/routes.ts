// HTTP routes for runs: start, read, cancel, and the spec's run-events list.
import { ApprovalJson, ApprovalListJson, RunJson, RunProjection, RunEventProjection, MemoryRecordProjection } from './responses.ts';
import { Elysia } from 'elysia';
import { type httpConventions, EVENT_STREAM, operation } from '../http/index.ts';
import { runJson } from './record.ts';
import { RunCreateBody, type RunService } from './service.ts';
import { ApprovalResolveBody } from './approvals.ts';

const anyAuthenticated = { auth: { roles: [] as const } };

export function runRoutes(conventions: ReturnType<typeof httpConventions>, runs: RunService) {
  return new Elysia({ name: 'run-routes' })
    .use(conventions)
    .post('/agents/:agentId/runs', async ({ principal, params, body, set, request }) => {
      const started = await runs.start(principal, params.agentId, body, request.headers.get('idempotency-key'));
      set.status = started.created ? 201 : 200;
      return runJson(started.run, started.queuePosition);
    }, {
      ...anyAuthenticated,
      ...operation({
        operationId: 'startRun',
        summary: 'Start a run (queued; its first event is run.queued)',
        ids: ['agentId'],
        headers: ['Idempotency-Key'],
        description: 'With `Idempotency-Key` (1–255 printable characters), a repeat by the same principal for the same agent within 24 h answers 200 with the first run and creates nothing; the same key with a different body is 409 IDEMPOTENCY_KEY_REUSED.',
        tag: 'Agent runs',
        body: RunCreateBody,
        responses: { 201: RunJson, 200: RunJson },
        errors: ['AGENT_DISABLED', 'RUN_FINISHED', 'MAX_CHILD_RUNS', 'IDEMPOTENCY_KEY_REUSED'],
      }),
    })
    .get('/agents/:agentId/runs', ({ principal, params, request }) => runs.list(principal, params.agentId, new URL(request.url).search), {
      ...anyAuthenticated,
      ...operation({
        operationId: 'listRuns',
        summary: "List an agent's runs",
        tag: 'Agent runs',
        ids: ['agentId'],
        list: RunProjection,
        description: 'List engine over whole run records; filter and sort on id, status, stopReason, parentRunId, rootRunId, mode, tickCount, createdBy, createdAt, startedAt, endedAt (default sort createdAt ascending).',
      }),
    })
    .get('/agents/runs/:agentRunId', async ({ principal, params }) => {
      const { run } = await runs.get(principal, params.agentRunId);
      return runJson(run, await runs.queuePosition(run));
    }, {
      ...anyAuthenticated,
      ...operation({ operationId: 'getRun', summary: 'Get a run', tag: 'Agent runs', ids: ['agentRunId'], responses: { 200: RunJson } }),
    })
    .get('/agents/runs/:agentRunId/events/stream', ({ principal, params, request }) =>
      runs.stream(principal, params.agentRunId, request.headers.get('last-event-id'), new URL(request.url).searchParams), {
      ...anyAuthenticated,
      ...operation({
        operationId: 'streamRunEvents',
        summary: "Live run events (Server-Sent Events)",
        ids: ['agentRunId'],
        headers: ['Last-Event-ID'],
        query: [{ name: 'after', description: 'Start after this seq (as Last-Event-ID)', schema: { type: 'integer', minimum: 0 } }],
        tag: 'Agent runs',
        description: 'Each event is `id: <seq>`, `event: <type>`, `data: <the event as JSON>`. Starts after `Last-Event-ID` or `?after=<seq>`, sends every later event once and in seq order, a comment line every 15 s, and closes after the run\'s final event.',
        responses: { 200: EVENT_STREAM },
      }),
    })
    .get('/agents/runs/:agentRunId/approvals', ({ principal, params }) => runs.approvals(principal, params.agentRunId), {
      ...anyAuthenticated,
      ...operation({ operationId: 'listRunApprovals', summary: "A run's approvals (tool calls and plans)", tag: 'Agent runs', ids: ['agentRunId'], responses: { 200: ApprovalListJson } }),
    })
    .post('/agents/runs/:agentRunId/approvals/:approvalId', ({ principal, params, body }) => runs.resolve(principal, params.agentRunId, params.approvalId, body), {
      ...anyAuthenticated,
      ...operation({
        operationId: 'resolveApproval',
        summary: 'Approve or reject a pending approval',
        ids: ['agentRunId', 'approvalId'],
        description: "The agent's owner, AGENT_ADMIN of its workspace, INSTANCE_ADMIN, or a user in config.automation.approvalRouting.delegateUserIds (unless its mode is block). 409 APPROVAL_RESOLVED when it is no longer pending.",
        tag: 'Agent runs',
        body: ApprovalResolveBody,
        responses: { 200: ApprovalJson },
        errors: ['APPROVAL_RESOLVED'],
      }),
    })
    .get('/agents/:agentId/memory', ({ principal, params, request }) => runs.memory(principal, params.agentId, new URL(request.url).search), {
      ...anyAuthenticated,
      ...operation({ operationId: 'listMemory', summary: "List an agent's memory records", tag: 'Agent runs', ids: ['agentId'], list: MemoryRecordProjection }),
    })
    .delete('/agents/:agentId/memory/:memoryId', async ({ principal, params, set }) => {
      await runs.forget(principal, params.agentId, params.memoryId);
      set.status = 204;
    }, {
      ...anyAuthenticated,
      ...operation({ operationId: 'deleteMemory', summary: 'Delete a memory record', tag: 'Agent runs', ids: ['agentId', 'memoryId'], responses: { 204: 'Deleted' } }),
    })
    .post('/agents/runs/:agentRunId/cancel', async ({ principal, params, set }) => {
      const run = await runs.cancel(principal, params.agentRunId);
      set.status = 202;
      return runJson(run, null);
    }, { ...anyAuthenticated, ...operation({ operationId: 'cancelRun', summary: 'Cancel a run (queued → cancelled; running → cancelling)', tag: 'Agent runs', ids: ['agentRunId'], responses: { 202: RunJson }, errors: ['RUN_FINISHED', 'CONFLICT'] }) })
    .get('/agents/runs/:agentRunId/events', ({ principal, params, request }) => runs.events(principal, params.agentRunId, new URL(request.url).search), {
      ...anyAuthenticated,
      ...operation({
        operationId: 'listRunEvents',
        summary: 'List Agent run events',
        tag: 'Agent runs',
        ids: ['agentRunId'],
        list: RunEventProjection,
        description:
          'List engine parameters: offset, limit (0..10000, default 100), count, filter, sort (default seq ASC), distinct, fields, joins (table `runs`), groupBy (count, min, max), cast, cte (tables `events`, `runs`), debug (INSTANCE_ADMIN). Envelope `{data, meta: {offset, limit, hasMore, count?}, debug?}`.',
      }),
    });
}
