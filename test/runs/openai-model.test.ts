// The OpenAI-compatible model (DESIGN §5 Models) against a local server speaking the chat
// completions wire format: what a run sends (messages, tools, reasoning_effort, the key) and how
// it takes the answer (text, tool calls, usage), errors without retries, cancel aborting the request.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { tempDir } from '../helpers/temp.ts';
import { openAIModel } from '../../src/runs/models/openai.ts';
import { ModelError, type TurnRequest } from '../../src/runs/models/types.ts';

type Run = Record<string, any>;
type Event = { seq: number; type: string; tickIndex: number | null; actor: string; data: any };
type Received = { path: string; authorization: string | null; body: any; aborted: boolean };
type Answer = (request: Received) => Response | Promise<Response>;

const MODEL_KEY = 'sk-model-secret-0123456789abcdef';

/** A chat-completions server: answers with the queued handlers in turn and records every request. */
class ChatServer {
  readonly received: Received[] = [];
  private answers: Answer[] = [];
  private readonly hanging = new Set<() => void>();
  private readonly server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (req) => {
      const request: Received = { path: new URL(req.url).pathname, authorization: req.headers.get('authorization'), body: await req.json().catch(() => null), aborted: false };
      req.signal.addEventListener('abort', () => (request.aborted = true));
      this.received.push(request);
      const answer = this.answers.shift();
      return answer ? answer(request) : Response.json({ error: { message: 'no answer queued' } }, { status: 599 });
    },
  });
  readonly baseURL = `http://127.0.0.1:${this.server.port}/v1`;

  queue(...answers: Answer[]): void {
    this.answers.push(...answers);
  }

  /** An answer that never comes (until the server closes). */
  hang: Answer = () =>
    new Promise<Response>((resolve) => {
      const release = () => resolve(new Response('late'));
      this.hanging.add(release);
    });

  reset(): void {
    this.received.length = 0;
    this.answers = [];
  }

  close(): void {
    for (const release of this.hanging) release();
    this.server.stop(true);
  }
}

const completion = (message: Record<string, unknown>, usage?: { prompt_tokens: number; completion_tokens: number }): Answer => () =>
  Response.json({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-test',
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, finish_reason: 'stop', logprobs: null }],
    ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
  });

const FINAL = ['completed', 'failed', 'cancelled', 'timed_out'];

/** The runs API of one platform, as engine.test.ts drives it. */
function runsApi(p: TestPlatform) {
  let agents = 0;
  const api = {
    agent: async (config: Record<string, unknown> = {}) =>
      (await p.json<{ id: string }>('POST', '/api/v1/agents', { body: { name: `openai-agent-${++agents}`, config: { model: 'gpt-test', ...config } } })).body.id,
    start: async (agentId: string, input: unknown) => {
      const r = await p.json<Run>('POST', `/api/v1/agents/${agentId}/runs`, { body: { input } });
      expect(r.status).toBe(201);
      return r.body;
    },
    get: async (runId: string) => (await p.json<Run>('GET', `/api/v1/agents/runs/${runId}`)).body,
    events: async (runId: string): Promise<Event[]> => (await p.json<{ data: Event[] }>('GET', `/api/v1/agents/runs/${runId}/events?limit=10000`)).body.data,
    async until(runId: string, done: (run: Run) => boolean, ms = 8000): Promise<Run> {
      const deadline = Date.now() + ms;
      for (;;) {
        const run = await api.get(runId);
        if (done(run)) return run;
        if (Date.now() > deadline) throw new Error(`run ${runId} is ${run.status} after ${ms} ms`);
        await Bun.sleep(20);
      }
    },
    ended: (runId: string, ms?: number) => api.until(runId, (r) => FINAL.includes(r.status), ms),
  };
  return api;
}

describe('runs on an OpenAI-compatible model', () => {
  let server: ChatServer;
  let p: TestPlatform;
  let api: ReturnType<typeof runsApi>;

  beforeAll(async () => {
    server = new ChatServer();
    p = await startTestPlatform({ ENABLED_MODELS: 'scripted,gpt-test', MODEL_BASE_URL: server.baseURL, MODEL_API_KEY: MODEL_KEY });
    api = runsApi(p);
  });
  afterAll(async () => {
    await p.close();
    server.close();
  });
  afterEach(() => server.reset());

  test('a plain answer completes the run with its text; usage from the answer; the request: system from the context sections, then the input', async () => {
    server.queue(completion({ content: 'Forty-two.' }, { prompt_tokens: 123, completion_tokens: 45 }));
    const agentId = await api.agent({ definition: { identity: 'tester', mission: 'answer' }, persona: 'calm', systemInstructions: 'Be brief.' });
    const run = await api.ended((await api.start(agentId, { question: 'the answer?' })).id);
    expect(run).toMatchObject({ status: 'completed', stopReason: 'completed', output: 'Forty-two.', tickCount: 1, usage: { ticks: 1, toolCalls: 0, promptTokens: 123, completionTokens: 45 } });

    const events = await api.events(run.id);
    expect(events.map((e) => e.type)).toEqual(['run.queued', 'run.started', 'tick.started', 'message.created', 'usage.reported', 'tick.completed', 'memory.stored', 'run.completed']);
    expect(events.find((e) => e.type === 'message.created')).toMatchObject({ actor: 'agent', tickIndex: 0, data: { role: 'assistant', text: 'Forty-two.' } });
    expect(events.find((e) => e.type === 'usage.reported')!.data).toEqual({ promptTokens: 123, completionTokens: 45 });

    expect(server.received).toHaveLength(1);
    const [request] = server.received;
    expect(request!.path).toBe('/v1/chat/completions');
    expect(request!.authorization).toBe(`Bearer ${MODEL_KEY}`);
    expect(request!.body.model).toBe('gpt-test');
    expect(request!.body).not.toHaveProperty('reasoning_effort');
    expect(request!.body).not.toHaveProperty('tools'); // the registry is empty; the API refuses []
    const messages = request!.body.messages as { role: string; content: string }[];
    expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
    const system = messages[0]!.content;
    const order = ['You are an agent run by the API platform.', 'Identity: tester', 'Persona: calm', 'Be brief.', 'Run mode: execute'].map((s) => system.indexOf(s));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(messages[1]!.content).toBe(JSON.stringify({ question: 'the answer?' }));
  });

  test('tool calls: acted on with the model ids (UNKNOWN_TOOL here); the next request carries the assistant tool_calls and the tool results; then the final answer', async () => {
    server.queue(
      completion(
        {
          content: 'Let me look.',
          tool_calls: [
            { id: 'call_abc', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
            { id: 'call_def', type: 'function', function: { name: 'noargs', arguments: '' } },
          ],
        },
        { prompt_tokens: 10, completion_tokens: 3 },
      ),
      completion({ content: 'done' }, { prompt_tokens: 20, completion_tokens: 2 }),
    );
    const run = await api.ended((await api.start(await api.agent(), 'look it up')).id);
    expect(run).toMatchObject({ status: 'completed', output: 'done', tickCount: 2, usage: { ticks: 2, toolCalls: 2, promptTokens: 30, completionTokens: 5 } });

    const events = await api.events(run.id);
    const requested = events.filter((e) => e.type === 'tool_call.requested');
    expect(requested.map((e) => e.data)).toMatchObject([{ name: 'lookup', args: { q: 'x' } }, { name: 'noargs', args: {} }]);
    expect(events.filter((e) => e.type === 'tool_call.failed').map((e) => e.data.code)).toEqual(['UNKNOWN_TOOL', 'UNKNOWN_TOOL']);
    expect(events.filter((e) => e.type === 'message.created').map((e) => e.data.text)).toEqual(['Let me look.', 'done']);

    expect(server.received).toHaveLength(2);
    const messages = server.received[1]!.body.messages as Record<string, any>[];
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
    expect(messages[1]!.content).toBe('"look it up"');
    expect(messages[2]).toEqual({
      role: 'assistant',
      content: 'Let me look.',
      tool_calls: [
        { id: 'call_abc', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
        { id: 'call_def', type: 'function', function: { name: 'noargs', arguments: '{}' } },
      ],
    });
    expect(messages[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_abc' });
    expect(JSON.parse(messages[3]!.content)).toEqual({ error: 'UNKNOWN_TOOL', message: 'No tool named lookup' });
    expect(messages[4]).toMatchObject({ role: 'tool', tool_call_id: 'call_def' });
  });

  test('config.reasoningEffort is sent as reasoning_effort; an answer without usage reports 0 tokens', async () => {
    server.queue(completion({ content: 'ok' }));
    const run = await api.ended((await api.start(await api.agent({ reasoningEffort: 'high' }), 'think')).id);
    expect(run).toMatchObject({ status: 'completed', output: 'ok', usage: { promptTokens: 0, completionTokens: 0 } });
    expect(server.received[0]!.body.reasoning_effort).toBe('high');
    expect((await api.events(run.id)).find((e) => e.type === 'usage.reported')!.data).toEqual({ promptTokens: 0, completionTokens: 0 });
  });

  test('an HTTP 500 fails the run with model_error and the API message, after exactly one request (no retry)', async () => {
    server.queue(() => Response.json({ error: { message: 'upstream exploded', type: 'server_error' } }, { status: 500 }));
    const run = await api.ended((await api.start(await api.agent(), 'x')).id);
    expect(run).toMatchObject({ status: 'failed', stopReason: 'model_error', error: 'The model API answered 500: upstream exploded', tickCount: 0 });
    expect((await api.events(run.id)).at(-1)).toMatchObject({ type: 'run.failed', data: { stopReason: 'model_error', error: 'The model API answered 500: upstream exploded' } });
    await Bun.sleep(300);
    expect(server.received).toHaveLength(1);
  });

  test('the key never appears in the run or its events, even when the API echoes it', async () => {
    server.queue(() => Response.json({ error: { message: `Incorrect API key provided: ${MODEL_KEY}`, type: 'invalid_request_error' } }, { status: 401 }));
    const run = await api.ended((await api.start(await api.agent(), 'x')).id);
    expect(run).toMatchObject({ status: 'failed', stopReason: 'model_error', error: 'The model API answered 401: Incorrect API key provided: [redacted]' });
    expect(server.received[0]!.authorization).toBe(`Bearer ${MODEL_KEY}`);
    const seen = JSON.stringify([run, await api.events(run.id)]);
    expect(seen).not.toContain(MODEL_KEY);
    expect(seen.toLowerCase()).not.toContain('authorization');
  });

  test('arguments that are not a JSON object fail the run with model_error; no tool runs on them', async () => {
    server.queue(completion({ tool_calls: [{ id: 'call_bad', type: 'function', function: { name: 'lookup', arguments: '{"q": ' } }] }));
    const run = await api.ended((await api.start(await api.agent(), 'x')).id);
    expect(run).toMatchObject({ status: 'failed', stopReason: 'model_error', error: 'The model called the tool "lookup" with arguments that are not a JSON object' });
    expect((await api.events(run.id)).map((e) => e.type)).not.toContain('tool_call.requested');
  });

  test('cancelling a run whose model request hangs aborts the request: cancelled within 2 s', async () => {
    server.queue(server.hang);
    const run = await api.start(await api.agent(), 'wait');
    for (let i = 0; i < 200 && server.received.length === 0; i++) await Bun.sleep(20);
    expect(server.received).toHaveLength(1);
    const asked = Date.now();
    const cancel = await p.json<Run>('POST', `/api/v1/agents/runs/${run.id}/cancel`);
    expect(cancel.status).toBe(202);
    const done = await api.ended(run.id, 4000);
    expect(Date.now() - asked).toBeLessThan(2000);
    expect(done).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
    for (let i = 0; i < 50 && !server.received[0]!.aborted; i++) await Bun.sleep(20);
    expect(server.received[0]!.aborted).toBe(true);
    expect(server.received).toHaveLength(1);
  });
});

describe('a model without a provider', () => {
  test('a run on a model no longer enabled fails with model_error and says so (no fallback to scripted)', async () => {
    const env = { DATABASE_URL: `sqlite:${join(tempDir('openai-model'), 'platform.db')}` };
    const before = await startTestPlatform({ ...env, ENABLED_MODELS: 'scripted,gpt-gone' });
    const agentId = await runsApi(before).agent({ model: 'gpt-gone' });
    await before.close();
    const after = await startTestPlatform({ ...env, ENABLED_MODELS: 'scripted' });
    try {
      const api = runsApi(after);
      const run = await api.ended((await api.start(agentId, { script: [{ finish: 'scripted would finish' }] })).id);
      expect(run).toMatchObject({ status: 'failed', stopReason: 'model_error', error: 'The model "gpt-gone" is not enabled on this instance (ENABLED_MODELS)', output: null });
    } finally {
      await after.close();
    }
  });
});

describe('the provider on its own', () => {
  let server: ChatServer;
  beforeAll(() => {
    server = new ChatServer();
  });
  afterAll(() => server.close());
  afterEach(() => server.reset());

  const request = (over: Partial<TurnRequest> = {}): TurnRequest => ({
    run: { id: 'r1', input: 'hi', mode: 'execute' },
    tickIndex: 0,
    model: 'gpt-test',
    context: { parts: [{ section: 'policy', text: 'the policy' }, { section: 'conversation', text: 'mode: execute\nuser: "hi"' }], promptChars: 0, memory: { entries: 0, chars: 0 } },
    conversation: [{ role: 'user', text: '"hi"' }],
    tools: [],
    signal: new AbortController().signal,
    ...over,
  });

  test('the registry tools go as function tools: name, description, inputSchema as parameters (else an empty object schema)', async () => {
    server.queue(completion({ content: 'fine' }));
    const turn = await openAIModel({ baseURL: server.baseURL }).turn(
      request({ tools: [{ name: 'search', description: 'Searches.', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }, { name: 'ping' }] }),
    );
    expect(turn.actions).toEqual([{ kind: 'say', text: 'fine' }, { kind: 'finish', value: 'fine' }]);
    expect(server.received[0]!.body.tools).toEqual([
      { type: 'function', function: { name: 'search', description: 'Searches.', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } },
      { type: 'function', function: { name: 'ping', parameters: { type: 'object' } } },
    ]);
    // Without MODEL_API_KEY a placeholder goes: the package requires one, a local server ignores it.
    expect(server.received[0]!.authorization).toBe('Bearer unset');
  });

  test('an answer without text and tool calls completes with output null', async () => {
    server.queue(completion({ content: null }));
    expect((await openAIModel({ baseURL: server.baseURL }).turn(request())).actions).toEqual([{ kind: 'finish', value: null }]);
  });

  test('a request that outlives its timeout is a ModelError, sent once', async () => {
    server.queue(server.hang);
    const error = await openAIModel({ baseURL: server.baseURL, timeoutMs: 200 }).turn(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toBe('The model API did not answer within 0.2 s');
    expect(server.received).toHaveLength(1);
  });

  test('an unreachable API is a ModelError without the URL', async () => {
    const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() });
    const baseURL = `http://user:pw@127.0.0.1:${closed.port}/v1`;
    closed.stop(true);
    const error = await openAIModel({ baseURL }).turn(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toBe('The model API could not be reached');
  });
});
