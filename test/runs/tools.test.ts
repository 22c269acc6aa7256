// Agent tools, approvals and plan review through the API (DESIGN §5 Tools, Approvals): component
// tools on the executor with api.input().agentTool, every failure code, the three permission
// modes, who may resolve, rejection, expiry, cancel while waiting, and plan review.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { databaseCases, dropPostgresSchema } from '../helpers/databases.ts';
import { refusedPort, startMcpServer, type TestMcpServer } from '../helpers/mcp-server.ts';

type Run = Record<string, any>;
type Event = { seq: number; type: string; tickIndex: number | null; actor: string; data: any };

const ARGS_SCHEMA = { type: 'object', additionalProperties: false, properties: { x: { type: 'integer', description: 'a number' } } };

for (const database of databaseCases()) describe(`on ${database.name}`, () => {
  let p: TestPlatform;
  const keys: Record<string, string> = {};
  const ids: Record<string, string> = {};
  const components: Record<string, string> = {};

  async function principal(name: string, roles: string[]) {
    const u = await p.json<{ id: string }>('POST', '/api/v1/users', { body: { name, email: `${name}@example.com`, roles, platformAccess: true } });
    keys[name] = (await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: u.body.id, name } })).body.key;
    ids[name] = u.body.id;
  }
  async function component(name: string, code: string) {
    const c = await p.json<{ id: string }>('POST', '/api/v1/components', { body: { name, kind: 'lowcode', elements: [{ name: 'out', code }] } });
    expect(c.status).toBe(201);
    components[name] = c.body.id;
  }

  let mcpServer: TestMcpServer;
  beforeAll(async () => {
    p = await startTestPlatform({ ...database.env, MCP_ALLOW_HTTP_LOOPBACK: 'true' }, { postgresSchema: database.postgresSchema });
    mcpServer = await startMcpServer('streamable_http', (headers) => headers.authorization === 'Bearer mcp-token-1');
    await principal('author', ['AGENT_ADMIN']);
    await principal('user', ['AGENT_USER']);
    await principal('delegate', ['AGENT_USER']);
    await component('echo', 'return api.input().agentTool;');
    await component('slow', 'await new Promise((r) => setTimeout(r, 5000)); return 1;');
    await component('big', "return 'x'.repeat(4000);");
    await component('thrower', "throw new Error('boom');");
  });
  afterAll(async () => {
    await mcpServer.close();
    await p.close();
    await dropPostgresSchema(database.postgresSchema);
  });

  let agents = 0;
  const agent = async (body: Record<string, unknown>) => {
    const r = await p.json<{ id: string }>('POST', '/api/v1/agents', { key: keys.author, body: { name: `tools-${++agents}`, ...body } });
    expect(r.status).toBe(201);
    return r.body.id;
  };
  const start = (agentId: string, body: unknown, key = keys.user) => p.json<Run>('POST', `/api/v1/agents/${agentId}/runs`, { key, body });
  const get = async (runId: string) => (await p.json<Run>('GET', `/api/v1/agents/runs/${runId}`, { key: keys.user })).body;
  const events = async (runId: string): Promise<Event[]> => (await p.json<{ data: Event[] }>('GET', `/api/v1/agents/runs/${runId}/events?limit=10000`, { key: keys.user })).body.data;
  const approvals = async (runId: string) => (await p.json<{ data: Record<string, any>[] }>('GET', `/api/v1/agents/runs/${runId}/approvals`, { key: keys.user })).body.data;
  const resolve = (runId: string, approvalId: string, body: unknown, key = keys.author) => p.json<Record<string, any>>('POST', `/api/v1/agents/runs/${runId}/approvals/${approvalId}`, { key, body });

  async function until(runId: string, done: (run: Run) => boolean, ms = 10000): Promise<Run> {
    const deadline = Date.now() + ms;
    for (;;) {
      const run = await get(runId);
      if (done(run)) return run;
      if (Date.now() > deadline) throw new Error(`run ${runId} is ${run.status} after ${ms} ms`);
      await Bun.sleep(20);
    }
  }
  const ended = (runId: string, ms?: number) => until(runId, (r) => ['completed', 'failed', 'cancelled', 'timed_out'].includes(r.status), ms);
  const waiting = (runId: string) => until(runId, (r) => r.status === 'waiting_approval');
  const calls = (tools: { name: string; args?: unknown }[]) => ({ tools });

  describe('component tools', () => {
    test('a tools plugin is one tool named by its id: the component sees agentTool, the result goes back to the model', async () => {
      const a = await agent({ config: { plugins: [{ id: 'echo', kind: 'tools', componentId: components.echo, inputSchema: ARGS_SCHEMA }] } });
      const run = await ended((await start(a, { input: { script: [calls([{ name: 'echo', args: { x: 7 } }]), { echoContext: true }, { finish: 'ok' }] } })).body.id);
      expect(run).toMatchObject({ status: 'completed', usage: { toolCalls: 1 } });
      const list = await events(run.id);
      const toolEvents = list.filter((e) => e.type.startsWith('tool_call.'));
      expect(toolEvents.map((e) => e.type)).toEqual(['tool_call.requested', 'tool_call.started', 'tool_call.completed']);
      const id = toolEvents[0]!.data.toolCallId;
      expect(toolEvents.every((e) => e.data.toolCallId === id)).toBe(true);
      expect(toolEvents[0]!.data).toMatchObject({ name: 'echo', args: { x: 7 } });
      const expected = JSON.stringify({ out: { entrypoint: 'echo', inputs: {}, args: { x: 7 } } });
      expect(toolEvents[2]!.data.resultBytes).toBe(Buffer.byteLength(expected));
      const conversation = list.find((e) => e.type === 'message.created')!.data.context.at(-1).text as string;
      expect(conversation).toContain(expected);
    });

    test('a component toolset: tools by alias or key, their entrypoint, static inputs and popResult', async () => {
      const a = await agent({
        config: {
          plugins: [{
            id: 'kit',
            kind: 'tools',
            componentId: components.echo,
            componentToolset: {
              defaultConfig: { inputs: { region: 'eu' }, popResult: 'out' },
              tools: { lookup: { alias: 'find', entrypoint: 'doLookup' }, store: { inputs: { region: 'us' } } },
            },
          }],
        },
      });
      const run = await ended((await start(a, { input: { script: [calls([{ name: 'find', args: { q: 1 } }, { name: 'store' }, { name: 'lookup' }]), { finish: 1 }] } })).body.id);
      const done = (await events(run.id)).filter((e) => e.type === 'tool_call.completed' || e.type === 'tool_call.failed');
      expect(done.map((e) => e.type)).toEqual(['tool_call.completed', 'tool_call.completed', 'tool_call.failed']);
      expect(done[0]!.data.resultBytes).toBe(JSON.stringify({ entrypoint: 'doLookup', inputs: { region: 'eu' }, args: { q: 1 } }).length);
      expect(done[1]!.data.resultBytes).toBe(JSON.stringify({ entrypoint: 'store', inputs: { region: 'us' }, args: {} }).length);
      expect(done[2]!.data.code).toBe('UNKNOWN_TOOL');
    });

    test('failures: INVALID_ARGS, TIMEOUT, RESULT_TOO_LARGE, TOOL_ERROR, UNKNOWN_TOOL, and disabled plugins are not tools; the run goes on', async () => {
      const a = await agent({
        config: {
          plugins: [
            { id: 'echo', kind: 'tools', componentId: components.echo, inputSchema: ARGS_SCHEMA },
            { id: 'slow', kind: 'tools', componentId: components.slow, timeoutMs: 1000 },
            { id: 'big', kind: 'tools', componentId: components.big, resultMaxBytes: 512 },
            { id: 'thrower', kind: 'tools', componentId: components.thrower },
            { id: 'off', kind: 'tools', componentId: components.echo, enabled: false },
          ],
        },
      });
      const run = await ended((await start(a, { input: { script: [calls([{ name: 'echo', args: { x: 'seven' } }, { name: 'echo', args: { y: 1 } }, { name: 'slow' }, { name: 'big' }, { name: 'thrower' }, { name: 'off' }]), { finish: 'went on' }] } })).body.id, 20000);
      expect(run).toMatchObject({ status: 'completed', output: 'went on', usage: { toolCalls: 6 } });
      const failed = (await events(run.id)).filter((e) => e.type === 'tool_call.failed').map((e) => e.data.code);
      expect(failed).toEqual(['INVALID_ARGS', 'INVALID_ARGS', 'TIMEOUT', 'RESULT_TOO_LARGE', 'TOOL_ERROR', 'UNKNOWN_TOOL']);
    });

    test("the policy's plugins are merged by id and win", async () => {
      const a = await agent({
        config: { plugins: [{ id: 'echo', kind: 'tools', componentId: components.thrower }] },
        policy: { plugins: [{ id: 'echo', kind: 'tools', componentId: components.echo }] },
      });
      const run = await ended((await start(a, { input: { script: [calls([{ name: 'echo' }])] } })).body.id);
      expect((await events(run.id)).some((e) => e.type === 'tool_call.completed')).toBe(true);
    });
  });

  describe('MCP server tools', () => {
    test("a server's tools, named toolNamePrefix + remote name or alias, called with the bearer secret; failures seen by the model", async () => {
      const secret = (await p.json<{ id: string }>('POST', '/api/v1/secrets', { key: keys.author, body: { name: 'mcp token', value: 'mcp-token-1' } })).body.id;
      const a = await agent({
        config: {
          plugins: [
            {
              id: 'remote',
              kind: 'mcp_server',
              mcpServer: { transport: 'streamable_http', url: mcpServer.url, authMode: 'bearer', bearerSecretId: secret, toolNamePrefix: 'r_' },
              mcpToolset: { configs: { fail: { alias: 'breaks' }, mixed: { enabled: false } } },
            },
            { id: 'down', kind: 'mcp_server', mcpServer: { transport: 'streamable_http', url: `http://127.0.0.1:${await refusedPort()}/mcp`, connectTimeoutMs: 1000 } },
          ],
        },
      });
      const run = await ended((await start(a, { input: { script: [calls([{ name: 'r_echo', args: { text: 'hi' } }, { name: 'breaks' }, { name: 'r_mixed' }, { name: 'r_fail' }]), { echoContext: true }, { finish: 'done' }] } })).body.id, 20000);
      expect(run).toMatchObject({ status: 'completed', output: 'done', usage: { toolCalls: 4 } });
      const list = await events(run.id);
      const outcomes = list.filter((e) => e.type === 'tool_call.completed' || e.type === 'tool_call.failed').map((e) => [e.data.name, e.data.code ?? 'ok']);
      expect(outcomes).toEqual([['r_echo', 'ok'], ['breaks', 'TOOL_ERROR'], ['r_mixed', 'UNKNOWN_TOOL'], ['r_fail', 'UNKNOWN_TOOL']]);
      const conversation = list.find((e) => e.type === 'message.created')!.data.context.at(-1).text as string;
      expect(conversation).toContain('echo: hi');
      expect(JSON.stringify(list)).not.toContain('mcp-token-1');
    });
  });

  describe('approvals', () => {
    const guarded = (extra: Record<string, unknown> = {}) => agent({ config: { plugins: [{ id: 'echo', kind: 'tools', componentId: components.echo, approvalPolicy: { mode: 'always' } }], ...extra } });

    test('default permission, mode always: asked, waiting_approval; approved by the owner → the call runs and the run goes on', async () => {
      const a = await guarded();
      const r = (await start(a, { input: { script: [calls([{ name: 'echo', args: { x: 1 } }]), { finish: 'done' }] } })).body;
      await waiting(r.id);
      const [pending] = await approvals(r.id);
      expect(pending).toMatchObject({ runId: r.id, kind: 'tool_call', toolName: 'echo', args: { x: 1 }, status: 'pending', resolvedAt: null, resolvedBy: null });
      expect(Date.parse(pending!.expiresAt) - Date.parse(pending!.requestedAt)).toBe(86_400_000);
      // An AGENT_USER that is not a delegate may not resolve.
      const refused = await resolve(r.id, pending!.id, { approve: true }, keys.user);
      expect(refused.status).toBe(403);
      expect((await resolve(r.id, pending!.id, { approve: 'yes' })).status).toBe(422);
      const ok = await resolve(r.id, pending!.id, { approve: true, reason: 'fine' });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ status: 'approved', resolvedBy: ids.author, reason: 'fine' });
      expect(await ended(r.id)).toMatchObject({ status: 'completed', output: 'done' });
      const types = (await events(r.id)).map((e) => e.type);
      const at = (t: string) => types.indexOf(t);
      expect(at('tool_call.requested')).toBeLessThan(at('tool_call.approval_requested'));
      expect(at('tool_call.approval_requested')).toBeLessThan(at('run.waiting_approval'));
      expect(at('run.waiting_approval')).toBeLessThan(at('tool_call.approval_resolved'));
      expect(at('tool_call.approval_resolved')).toBeLessThan(at('run.resumed'));
      expect(at('run.resumed')).toBeLessThan(at('tool_call.started'));
      const again = await resolve(r.id, pending!.id, { approve: false });
      expect(again.status).toBe(409);
      // The problem's own status stays the HTTP status; the approval's is approvalStatus.
      expect(again.body).toMatchObject({ status: 409, code: 'APPROVAL_RESOLVED', approvalStatus: 'approved' });
    });

    test('rejected: the call fails REJECTED and the run goes on', async () => {
      const a = await guarded();
      const r = (await start(a, { input: { script: [calls([{ name: 'echo' }]), { finish: 'after' }] } })).body;
      await waiting(r.id);
      const [pending] = await approvals(r.id);
      expect((await resolve(r.id, pending!.id, { approve: false })).status).toBe(200);
      expect(await ended(r.id)).toMatchObject({ status: 'completed', output: 'after' });
      const list = await events(r.id);
      expect(list.find((e) => e.type === 'tool_call.approval_resolved')!.data).toMatchObject({ decision: 'rejected', by: ids.author });
      expect(list.find((e) => e.type === 'tool_call.failed')!.data.code).toBe('REJECTED');
    });

    test('expired: the run fails approval_expired; resolving it then is 409', async () => {
      const a = await guarded();
      const r = (await start(a, { approvalTimeoutMs: 1000, input: { script: [calls([{ name: 'echo' }]), { finish: 'never' }] } })).body;
      await waiting(r.id);
      expect(await ended(r.id, 5000)).toMatchObject({ status: 'failed', stopReason: 'approval_expired' });
      const [approval] = await approvals(r.id);
      expect(approval!.status).toBe('expired');
      expect((await resolve(r.id, approval!.id, { approve: true })).body.code).toBe('APPROVAL_RESOLVED');
    });

    test('delegates in approvalRouting may resolve, unless its mode is block', async () => {
      const a = await guarded({ automation: { approvalRouting: { mode: 'delegate', delegateUserIds: [ids.delegate] } } });
      const r = (await start(a, { input: { script: [calls([{ name: 'echo' }])] } })).body;
      await waiting(r.id);
      const [pending] = await approvals(r.id);
      expect((await resolve(r.id, pending!.id, { approve: true }, keys.delegate)).status).toBe(200);
      await ended(r.id);
      const blocked = await guarded({ automation: { approvalRouting: { mode: 'block', delegateUserIds: [ids.delegate] } } });
      const b = (await start(blocked, { input: { script: [calls([{ name: 'echo' }])] } })).body;
      await waiting(b.id);
      const [held] = await approvals(b.id);
      expect((await resolve(b.id, held!.id, { approve: true }, keys.delegate)).status).toBe(403);
      await p.json('POST', `/api/v1/agents/runs/${b.id}/cancel`, { key: keys.author });
      await ended(b.id);
    });

    test('permissions: full needs no approval, auto_review approves at once; conditional asks only above read', async () => {
      const tool = (id: string, approvalPolicy: unknown) => ({ id, kind: 'tools', componentId: components.echo, approvalPolicy });
      const a = await agent({
        config: { plugins: [tool('always', { mode: 'always' }), tool('auto', { mode: 'always' }), tool('reader', { mode: 'conditional', safetyTier: 'read' })] },
        policy: { toolPermissions: { always: 'full', auto: 'auto_review' } },
      });
      const run = await ended((await start(a, { input: { script: [calls([{ name: 'always' }, { name: 'auto' }, { name: 'reader' }])] } })).body.id);
      const list = await events(run.id);
      expect(list.filter((e) => e.type === 'tool_call.completed')).toHaveLength(3);
      expect(list.filter((e) => e.type === 'tool_call.approval_requested')).toHaveLength(0);
      expect(list.find((e) => e.type === 'tool_call.approval_resolved')!.data).toMatchObject({ decision: 'approved', by: 'auto_review' });
      const writer = await agent({ config: { plugins: [tool('writer', { mode: 'conditional', safetyTier: 'write' })] }, policy: { defaultToolPermission: 'default' } });
      const w = (await start(writer, { input: { script: [calls([{ name: 'writer' }])] } })).body;
      await waiting(w.id);
      await p.json('POST', `/api/v1/agents/runs/${w.id}/cancel`, { key: keys.user });
      expect(await ended(w.id)).toMatchObject({ status: 'cancelled' });
      // Cancelled while waiting: the approval can no longer be acted on.
      const [closed] = await approvals(w.id);
      expect(closed!.status).not.toBe('pending');
      expect((await resolve(w.id, closed!.id, { approve: true })).status).toBe(409);
    });
  });

  describe('plan review', () => {
    test('review_required in interactive mode: plan.proposed, nothing runs until approved', async () => {
      const a = await agent({ config: { planningPolicy: 'review_required' } });
      const r = (await start(a, { mode: 'interactive', input: { plan: ['look', 'answer'], script: [{ say: 'hi' }, { finish: 1 }] } })).body;
      await waiting(r.id);
      await Bun.sleep(100);
      let list = await events(r.id);
      expect(list.map((e) => e.type)).toEqual(['run.queued', 'run.started', 'plan.proposed', 'run.waiting_approval']);
      expect(list[2]!.data).toMatchObject({ plan: ['look', 'answer'] });
      expect(list[2]!.tickIndex).toBeNull();
      const [plan] = await approvals(r.id);
      expect(plan).toMatchObject({ kind: 'plan', toolCallId: null, status: 'pending' });
      expect(plan!.id).toBe(list[2]!.data.approvalId);
      expect((await resolve(r.id, plan!.id, { approve: true })).status).toBe(200);
      expect(await ended(r.id)).toMatchObject({ status: 'completed', output: 1, tickCount: 2 });
      list = await events(r.id);
      expect(list.map((e) => e.type).slice(4, 7)).toEqual(['plan.resolved', 'run.resumed', 'tick.started']);
    });

    test('rejected → failed with plan_rejected; a run without a plan proposes its script; execute mode has no review', async () => {
      const a = await agent({ config: { planningPolicy: 'review_required', executionMode: 'interactive' } });
      const r = (await start(a, { input: { script: [{ finish: 1 }] } })).body;
      await waiting(r.id);
      const [plan] = await approvals(r.id);
      expect((await events(r.id)).find((e) => e.type === 'plan.proposed')!.data.plan).toEqual([{ finish: 1 }]);
      await resolve(r.id, plan!.id, { approve: false, reason: 'no' });
      expect(await ended(r.id)).toMatchObject({ status: 'failed', stopReason: 'plan_rejected', tickCount: 0 });
      const direct = await ended((await start(a, { mode: 'execute', input: { script: [{ finish: 2 }] } })).body.id);
      expect(direct).toMatchObject({ status: 'completed', output: 2 });
    });
  });
});
