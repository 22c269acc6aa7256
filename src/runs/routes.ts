// HTTP routes for runs: start, read, cancel, and the spec's run-events list.
import { Elysia } from 'elysia';
import { type httpConventions, operation } from '../http/index.ts';
import { runJson } from './record.ts';
import { RunCreateBody, type RunService } from './service.ts';

const anyAuthenticated = { auth: { roles: [] as const } };

export function runRoutes(conventions: ReturnType<typeof httpConventions>, runs: RunService) {
  return new Elysia({ name: 'run-routes' })
    .use(conventions)
    .post('/agents/:agentId/runs', async ({ principal, params, body, set }) => {
      const run = await runs.start(principal, params.agentId, body);
      set.status = 201;
      return runJson(run);
    }, { ...anyAuthenticated, ...operation({ summary: 'Start a run (queued; its first event is run.queued)', tag: 'Agent runs', body: RunCreateBody, responses: { 201: 'The run' }, errors: [409] }) })
    .get('/agents/runs/:agentRunId', async ({ principal, params }) => runJson((await runs.get(principal, params.agentRunId)).run), {
      ...anyAuthenticated,
      ...operation({ summary: 'Get a run', tag: 'Agent runs' }),
    })
    .post('/agents/runs/:agentRunId/cancel', async ({ principal, params, set }) => {
      const run = await runs.cancel(principal, params.agentRunId);
      set.status = 202;
      return runJson(run);
    }, { ...anyAuthenticated, ...operation({ summary: 'Cancel a run (queued → cancelled; running → cancelling)', tag: 'Agent runs', responses: { 202: 'The run' }, errors: [409] }) })
    .get('/agents/runs/:agentRunId/events', ({ principal, params, request }) => runs.events(principal, params.agentRunId, new URL(request.url).search), {
      ...anyAuthenticated,
      ...operation({
        summary: 'List Agent run events',
        tag: 'Agent runs',
        list: true,
        description:
          'List engine parameters: offset, limit (0..10000, default 100), count, filter, sort (default seq ASC), distinct, fields, joins (table `runs`), groupBy (count, min, max), cast, cte (tables `events`, `runs`), debug (INSTANCE_ADMIN). Envelope `{data, meta: {offset, limit, hasMore, count?}, debug?}`.',
      }),
    });
}
