// The MCP client (src/runs/tools/mcp.ts) against real MCP servers made with the official SDK on
// loopback ports: both transports, every auth mode with secrets from the store, the manifest
// cache, results and errors, every limit (handshake, call, refused port), and no secret in a log.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { IncomingHttpHeaders } from 'node:http';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { refusedPort, startMcpServer, startSilentServer, type TestMcpServer } from '../helpers/mcp-server.ts';
import { McpClients, McpError, type McpServerConfig, type McpTool } from '../../src/runs/tools/mcp.ts';
import type { Logger } from '../../src/core/log.ts';

const TOKEN = 'tok-Zq8v1-bearer-secret-value';
const PASSWORD = 'pa:ss-wörd-7Hc2-secret';
const API_KEY = 'key-Mx4p9-header-secret-value';
const ALL_SECRETS = [TOKEN, PASSWORD, API_KEY];

let p: TestPlatform;
let ws: string;
let otherWs: string;
const secretIds: Record<string, string> = {};
const logged: string[] = [];
const capturingLog: Logger = {
  debug: (m, f) => void logged.push(`${m} ${JSON.stringify(f ?? {})}`),
  info: (m, f) => void logged.push(`${m} ${JSON.stringify(f ?? {})}`),
  warn: (m, f) => void logged.push(`${m} ${JSON.stringify(f ?? {})}`),
  error: (m, e) => void logged.push(`${m} ${String(e)}`),
  access: (f) => void logged.push(`request ${JSON.stringify(f)}`),
  child: () => capturingLog,
  within: (_, fn) => fn(),
  outside: (fn) => fn(),
};
let mcp: McpClients;

const secret = async (name: string, value: string, workspaceId = ws) =>
  (await p.json<{ id: string }>('POST', '/api/v1/secrets', { body: { name, value, workspaceId } })).body.id;

/** The McpError a promise rejects with (fails the test when it resolves or rejects otherwise). */
async function mcpError(promise: Promise<unknown>): Promise<McpError> {
  const outcome = await promise.then((value) => ({ value }), (error: unknown) => ({ error }));
  if (!('error' in outcome)) throw new Error(`expected an McpError, got ${JSON.stringify(outcome.value)}`);
  if (!(outcome.error instanceof McpError)) throw outcome.error;
  return outcome.error;
}

const timed = async <T>(fn: () => Promise<T>): Promise<{ ms: number; result: T }> => {
  const start = performance.now();
  const result = await fn();
  return { ms: performance.now() - start, result };
};

const names = (tools: McpTool[]) => tools.map((tool) => tool.name).sort();
const call = (server: McpServerConfig, name: string, args: Record<string, unknown> = {}, options: { timeoutMs?: number; signal?: AbortSignal; pluginId?: string } = {}) =>
  mcp.call(ws, options.pluginId ?? 'plugin', server, name, args, { timeoutMs: options.timeoutMs ?? 5000, signal: options.signal ?? new AbortController().signal });

beforeAll(async () => {
  p = await startTestPlatform({ MCP_ALLOW_HTTP_LOOPBACK: 'true' });
  ws = p.boot.defaultWorkspaceId;
  otherWs = (await p.json<{ id: string }>('POST', '/api/v1/workspaces', { body: { name: 'elsewhere' } })).body.id;
  secretIds.token = await secret('bearer token', TOKEN);
  secretIds.password = await secret('basic password', PASSWORD);
  secretIds.apiKey = await secret('api key', API_KEY);
  secretIds.elsewhere = await secret('other workspace', TOKEN, otherWs);
  mcp = new McpClients({ reveal: (workspaceId, secretId) => p.secrets.reveal(workspaceId, secretId), allowHttpLoopback: true, log: capturingLog });
});
afterAll(async () => {
  await mcp.close();
  await p.close();
});

for (const transport of ['streamable_http', 'sse'] as const) describe(transport, () => {
  let server: TestMcpServer;
  let config: McpServerConfig;
  beforeAll(async () => {
    server = await startMcpServer(transport);
    config = { transport, url: server.url };
  });
  afterAll(() => server.close());

  test('lists the tools with their descriptions and input schemas', async () => {
    const tools = await mcp.tools(ws, 'list', config);
    expect(names(tools)).toEqual(['echo', 'fail', 'hang', 'mixed']);
    const echo = tools.find((tool) => tool.name === 'echo')!;
    expect(echo.description).toBe('Echoes its text');
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string', description: 'What to echo' } }, required: ['text'] });
  });

  test('a call answers its text; isError is passed on; mixed content is the content array as JSON', async () => {
    expect(await call(config, 'echo', { text: 'hi' })).toEqual({ text: 'echo: hi', isError: false });
    expect(await call(config, 'fail')).toEqual({ text: 'it broke', isError: true });
    const mixed = await call(config, 'mixed');
    expect(mixed.isError).toBe(false);
    expect(JSON.parse(mixed.text)).toEqual([{ type: 'text', text: 'a picture:' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }]);
    // The SDK's server answers an unknown tool and bad arguments with isError results.
    expect(await call(config, 'nope')).toMatchObject({ isError: true, text: expect.stringContaining('nope') });
    expect(await call(config, 'echo', { text: 42 })).toMatchObject({ isError: true });
  });

  test('one connection serves many requests (one session), concurrent ones included', async () => {
    const own = await startMcpServer(transport);
    try {
      const cfg = { transport, url: own.url };
      await Promise.all([mcp.tools(ws, 'reuse', cfg), call(cfg, 'echo', { text: 'a' }, { pluginId: 'reuse' }), call(cfg, 'echo', { text: 'b' }, { pluginId: 'reuse' })]);
      await call(cfg, 'echo', { text: 'c' }, { pluginId: 'reuse' });
      expect(own.sessions()).toBe(1);
    } finally {
      await own.close();
    }
  });

  test('a call that hangs is TIMEOUT after timeoutMs, and the connection goes on serving', async () => {
    const { ms, result } = await timed(() => mcpError(call(config, 'hang', {}, { timeoutMs: 300 })));
    expect(result.code).toBe('TIMEOUT');
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(1500);
    expect(await call(config, 'echo', { text: 'after' })).toEqual({ text: 'echo: after', isError: false });
  });

  test('a call is aborted by its signal: it rejects with the signal\'s reason at once', async () => {
    const controller = new AbortController();
    const reason = new Error('tick cancelled');
    setTimeout(() => controller.abort(reason), 100);
    const { ms, result } = await timed(() => call(config, 'hang', {}, { signal: controller.signal }).then(() => null, (error: unknown) => error));
    expect(result).toBe(reason);
    expect(ms).toBeLessThan(1000);
    const already = new AbortController();
    already.abort(reason);
    await expect(call(config, 'echo', { text: 'x' }, { signal: already.signal })).rejects.toBe(reason);
  });

  test('the manifest is cached for manifestTtlMs: the same list within it, the new one after', async () => {
    const own = await startMcpServer(transport);
    try {
      const cfg: McpServerConfig = { transport, url: own.url, manifestTtlMs: 500 };
      expect(names(await mcp.tools(ws, 'ttl', cfg))).toEqual(['echo', 'fail', 'hang', 'mixed']);
      own.setExtraTools(['added']);
      expect(names(await mcp.tools(ws, 'ttl', cfg))).toEqual(['echo', 'fail', 'hang', 'mixed']);
      // The cache is per (workspace, plugin id, configuration): another plugin id lists anew.
      expect(names(await mcp.tools(ws, 'ttl-other', cfg))).toContain('added');
      await Bun.sleep(550);
      expect(names(await mcp.tools(ws, 'ttl', cfg))).toEqual(['added', 'echo', 'fail', 'hang', 'mixed']);
      // A caller changing its copy changes nothing cached.
      const listed = await mcp.tools(ws, 'ttl', cfg);
      listed[0]!.name = 'mutated';
      expect(names(await mcp.tools(ws, 'ttl', cfg))).toContain('added');
      expect(names(await mcp.tools(ws, 'ttl', cfg))).not.toContain('mutated');
    } finally {
      await own.close();
    }
  });

  test('a server that accepts the connection and never answers: TIMEOUT within connectTimeoutMs, for tools and calls', async () => {
    const silent = await startSilentServer();
    try {
      const cfg: McpServerConfig = { transport, url: silent.url(transport === 'sse' ? '/sse' : '/mcp'), connectTimeoutMs: 500 };
      const listing = await timed(() => mcpError(mcp.tools(ws, 'silent', cfg)));
      expect(listing.result.code).toBe('TIMEOUT');
      expect(listing.ms).toBeGreaterThanOrEqual(490);
      expect(listing.ms).toBeLessThan(1500);
      const calling = await timed(() => mcpError(call(cfg, 'echo', { text: 'x' }, { pluginId: 'silent', timeoutMs: 10_000 })));
      expect(calling.result.code).toBe('TIMEOUT');
      expect(calling.ms).toBeLessThan(1500);
    } finally {
      await silent.close();
    }
  });

  test('a refused port is UNREACHABLE at once', async () => {
    const cfg: McpServerConfig = { transport, url: `http://127.0.0.1:${await refusedPort()}/mcp`, connectTimeoutMs: 10_000 };
    const { ms, result } = await timed(() => mcpError(mcp.tools(ws, 'refused', cfg)));
    expect(result.code).toBe('UNREACHABLE');
    expect(result.message).toContain('127.0.0.1');
    expect(ms).toBeLessThan(2000);
    expect((await mcpError(call(cfg, 'echo', {}, { pluginId: 'refused' }))).code).toBe('UNREACHABLE');
  });

  describe('auth modes: the server sees the header; the secrets come from the store', () => {
    const cases: { mode: string; config: () => Partial<McpServerConfig>; check: (h: IncomingHttpHeaders) => boolean }[] = [
      { mode: 'bearer', config: () => ({ authMode: 'bearer', bearerSecretId: secretIds.token }), check: (h) => h.authorization === `Bearer ${TOKEN}` },
      {
        mode: 'basic',
        config: () => ({ authMode: 'basic', basicUsername: 'bot', basicPasswordSecretId: secretIds.password }),
        check: (h) => h.authorization === `Basic ${Buffer.from(`bot:${PASSWORD}`, 'utf8').toString('base64')}`,
      },
      {
        mode: 'header',
        config: () => ({ authMode: 'header', headers: [{ name: 'X-Api-Key', secretId: secretIds.apiKey, prefix: 'Key ' }, { name: 'X-Tenant', value: 'acme' }] }),
        check: (h) => h['x-api-key'] === `Key ${API_KEY}` && h['x-tenant'] === 'acme',
      },
    ];
    for (const { mode, config: auth, check } of cases) {
      test(`${mode}: every request carries the credential; without it the server refuses (UNREACHABLE, HTTP 401)`, async () => {
        const guarded = await startMcpServer(transport, check);
        try {
          const cfg = { transport, url: guarded.url, ...auth() } as McpServerConfig;
          expect(names(await mcp.tools(ws, `auth-${mode}`, cfg))).toContain('echo');
          expect(await call(cfg, 'echo', { text: mode }, { pluginId: `auth-${mode}` })).toEqual({ text: `echo: ${mode}`, isError: false });
          expect(guarded.seen.length).toBeGreaterThan(1);
          expect(guarded.seen.every(check)).toBe(true);

          const refused = await mcpError(mcp.tools(ws, `auth-${mode}-none`, { transport, url: guarded.url }));
          expect(refused.code).toBe('UNREACHABLE');
          expect(refused.message).toContain('401');
        } finally {
          await guarded.close();
        }
      });
    }

    test('a wrong credential is refused, and the server echoing it back puts no secret in the message', async () => {
      const guarded = await startMcpServer(transport, () => false);
      try {
        const error = await mcpError(mcp.tools(ws, 'auth-wrong', { transport, url: guarded.url, authMode: 'bearer', bearerSecretId: secretIds.token }));
        expect(error.code).toBe('UNREACHABLE');
        if (transport === 'streamable_http') expect(error.message).toContain('[secret]'); // the 401 body quoted the header
        expect(error.message).not.toContain(TOKEN);
      } finally {
        await guarded.close();
      }
    });
  });
});

describe('configuration refused before any request (BAD_CONFIG)', () => {
  const base: McpServerConfig = { url: 'http://127.0.0.1:1/mcp' };
  const refusals: [string, McpServerConfig, string][] = [
    ['a missing secret, named by its id', { ...base, authMode: 'bearer', bearerSecretId: '8a3c6a52-1111-4a7f-9c10-2d3e4f5a6b7c' }, '8a3c6a52-1111-4a7f-9c10-2d3e4f5a6b7c'],
    ['a secret id that is no UUID', { ...base, authMode: 'bearer', bearerSecretId: 'github-token' }, 'github-token'],
    ['bearer without bearerSecretId', { ...base, authMode: 'bearer' }, 'bearerSecretId'],
    ['basic without a user name', { ...base, authMode: 'basic', basicPasswordSecretId: 'x' }, 'basicUsername'],
    ['basic with a colon in the user name', { ...base, authMode: 'basic', basicUsername: 'a:b', basicPasswordSecretId: 'x' }, 'basicUsername'],
    ['header without headers', { ...base, authMode: 'header', headers: [] }, 'headers'],
    ['a header without secretId or value', { ...base, authMode: 'header', headers: [{ name: 'x-a' }] }, 'headers/0'],
    ['a header name that is no token', { ...base, authMode: 'header', headers: [{ name: 'x a', value: 'v' }] }, 'headers/0/name'],
    ['a header the transport owns', { ...base, authMode: 'header', headers: [{ name: 'Mcp-Session-Id', value: 'v' }] }, 'mcp-session-id'],
    ['a static header value with a line break', { ...base, authMode: 'header', headers: [{ name: 'x-a', value: 'v\r\nx-b: injected' }] }, 'line break'],
    ['a url without a host', { url: 'not a url' }, 'url'],
    ['no url', {}, 'url'],
    ['ftp', { url: 'ftp://127.0.0.1/mcp' }, 'https://'],
    ['http to a host that is not loopback', { url: 'http://mcp.example.com/mcp' }, 'loopback'],
    ['http to 10.0.0.1', { url: 'http://10.0.0.1/mcp' }, 'loopback'],
    ['credentials in the url', { url: 'https://user:pw@mcp.example.com/mcp' }, 'credentials'],
  ];
  for (const [label, server, mentions] of refusals) {
    test(label, async () => {
      const listing = await mcpError(mcp.tools(ws, 'bad', server));
      expect(listing.code).toBe('BAD_CONFIG');
      expect(listing.message).toContain(mentions);
      expect((await mcpError(call(server, 'echo'))).code).toBe('BAD_CONFIG');
    });
  }

  test('a secret of another workspace is missing here; its message names the id and no value', async () => {
    const error = await mcpError(mcp.tools(ws, 'bad', { ...base, authMode: 'header', headers: [{ name: 'x-k', secretId: secretIds.elsewhere }] }));
    expect(error.code).toBe('BAD_CONFIG');
    expect(error.message).toContain(secretIds.elsewhere!);
    expect(error.message).not.toContain(TOKEN);
  });

  test('a secret whose value cannot be a header value is refused without quoting it', async () => {
    const id = await secret('multi-line', 'line one\nline two');
    const error = await mcpError(mcp.tools(ws, 'bad', { ...base, authMode: 'bearer', bearerSecretId: id }));
    expect(error.code).toBe('BAD_CONFIG');
    expect(error.message).not.toContain('line one');
  });

  test('a deleted secret stops working at once, even on a cached connection', async () => {
    const server = await startMcpServer('streamable_http', (h) => h.authorization === 'Bearer short-lived-secret-1');
    try {
      const id = await secret('short-lived', 'short-lived-secret-1');
      const cfg: McpServerConfig = { url: server.url, authMode: 'bearer', bearerSecretId: id };
      expect(await call(cfg, 'echo', { text: 'x' }, { pluginId: 'deleted' })).toMatchObject({ isError: false });
      expect((await p.json('DELETE', `/api/v1/secrets/${id}`)).status).toBe(204);
      const error = await mcpError(call(cfg, 'echo', { text: 'x' }, { pluginId: 'deleted' }));
      expect(error.code).toBe('BAD_CONFIG');
      expect(error.message).toContain(id);
    } finally {
      await server.close();
    }
  });

  test('http to loopback is refused too when the instance does not allow it', async () => {
    const strict = new McpClients({ reveal: (w, s) => p.secrets.reveal(w, s), allowHttpLoopback: false, log: capturingLog });
    try {
      const error = await mcpError(strict.tools(ws, 'strict', { url: 'http://127.0.0.1:8080/mcp' }));
      expect(error.code).toBe('BAD_CONFIG');
      expect(error.message).toContain('MCP_ALLOW_HTTP_LOOPBACK');
    } finally {
      await strict.close();
    }
  });
});

describe('a server answering JSON-RPC errors and malformed answers (TOOL_ERROR), or never listing', () => {
  let raw: ReturnType<typeof Bun.serve>;
  const held = new Set<() => void>();
  beforeAll(() => {
    // A hand-written streamable HTTP server: a valid handshake, then an error or nonsense; on
    // /silent-list, no answer to tools/list at all.
    raw = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(request) {
        if (request.method !== 'POST') return new Response(null, { status: 405 });
        const message = (await request.json()) as { id?: number; method: string };
        if (message.id === undefined) return new Response(null, { status: 202 });
        const answer = (body: Record<string, unknown>) => Response.json({ jsonrpc: '2.0', id: message.id, ...body });
        switch (message.method) {
          case 'initialize':
            return answer({ result: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } } });
          case 'tools/list':
            if (new URL(request.url).pathname === '/silent-list') await new Promise<void>((resolve) => held.add(resolve));
            return answer({ result: { tools: 'not a list' } });
          default:
            return answer({ error: { code: -32603, message: 'the tool exploded' } });
        }
      },
    });
  });
  afterAll(() => {
    for (const release of held) release();
    raw.stop(true);
  });

  test('a server that completes the handshake and never lists: TIMEOUT within twice connectTimeoutMs', async () => {
    const { ms, result } = await timed(() => mcpError(mcp.tools(ws, 'raw-silent', { url: `http://127.0.0.1:${raw.port}/silent-list`, connectTimeoutMs: 300 })));
    expect(result.code).toBe('TIMEOUT');
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(1200);
  });

  test('a JSON-RPC error to a call is TOOL_ERROR with the server\'s message', async () => {
    const error = await mcpError(call({ url: `http://127.0.0.1:${raw.port}/mcp` }, 'anything', {}, { pluginId: 'raw' }));
    expect(error.code).toBe('TOOL_ERROR');
    expect(error.message).toContain('the tool exploded');
  });

  test('a malformed tool list is TOOL_ERROR', async () => {
    const error = await mcpError(mcp.tools(ws, 'raw', { url: `http://127.0.0.1:${raw.port}/mcp` }));
    expect(error.code).toBe('TOOL_ERROR');
    expect(error.message).toContain('malformed');
  });
});

test('a server that forgot the session (restarted): the call goes on a new connection, once', async () => {
  const server = await startMcpServer('streamable_http');
  try {
    const cfg: McpServerConfig = { url: server.url };
    expect(await call(cfg, 'echo', { text: 'one' }, { pluginId: 'restart' })).toMatchObject({ text: 'echo: one' });
    server.forgetSessions();
    expect(await call(cfg, 'echo', { text: 'two' }, { pluginId: 'restart' })).toMatchObject({ text: 'echo: two' });
    expect(server.sessions()).toBe(2);
  } finally {
    await server.close();
  }
});

test('the platform builds one from its configuration (p.mcp) and closes it with itself', async () => {
  const server = await startMcpServer('streamable_http');
  try {
    expect(names(await p.mcp.tools(ws, 'platform', { url: server.url }))).toContain('echo');
  } finally {
    await server.close();
  }
});

test('closed clients refuse work (UNREACHABLE)', async () => {
  const closing = new McpClients({ reveal: async () => null, allowHttpLoopback: true, log: capturingLog });
  await closing.close();
  expect((await mcpError(closing.tools(ws, 'closed', { url: 'http://127.0.0.1:1/mcp' }))).code).toBe('UNREACHABLE');
});

test('no secret value ever reached the log', () => {
  expect(logged.length).toBeGreaterThan(0);
  const text = logged.join('\n');
  for (const value of [...ALL_SECRETS, Buffer.from(`bot:${PASSWORD}`).toString('base64')]) expect(text).not.toContain(value);
});
