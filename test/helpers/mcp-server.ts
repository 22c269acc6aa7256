// MCP servers for tests, made with the official SDK (McpServer) on node:http at 127.0.0.1: over
// streamable HTTP (stateful: one session a client) or SSE, with an optional credential check,
// the headers each request carried, and a tool list the test can change while clients are connected.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export interface TestMcpServer {
  /** Where a client connects: /mcp (streamable HTTP) or /sse. */
  url: string;
  /** The headers of every request received, in order. */
  seen: IncomingHttpHeaders[];
  /** Sessions begun (handshakes completed or not). */
  sessions(): number;
  /** Tools beyond the fixed ones (`extra:<name>` answers its name); live sessions see the change. */
  setExtraTools(names: string[]): void;
  /** Forgets every session, as a restarted server would (streamable HTTP answers 404 to them). */
  forgetSessions(): void;
  close(): Promise<void>;
}

/** `authorize` sees each request's headers; false answers 401. */
export async function startMcpServer(transport: 'streamable_http' | 'sse', authorize: (headers: IncomingHttpHeaders) => boolean = () => true): Promise<TestMcpServer> {
  const seen: IncomingHttpHeaders[] = [];
  let extra: string[] = [];
  const servers = new Set<{ server: McpServer; extras: Map<string, RegisteredTool> }>();
  const hanging = new Set<() => void>();
  const streamable = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  let sessionCount = 0;

  const syncExtras = (entry: { server: McpServer; extras: Map<string, RegisteredTool> }) => {
    for (const [name, tool] of entry.extras) if (!extra.includes(name)) { tool.remove(); entry.extras.delete(name); }
    for (const name of extra) {
      if (!entry.extras.has(name)) entry.extras.set(name, entry.server.registerTool(name, { description: `Extra tool ${name}` }, async () => ({ content: [{ type: 'text', text: name }] })));
    }
  };

  const newServer = (): McpServer => {
    const server = new McpServer({ name: 'test-mcp', version: '1.0.0' });
    server.registerTool('echo', { description: 'Echoes its text', inputSchema: { text: z.string().describe('What to echo') } }, async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }));
    server.registerTool('fail', { description: 'Always fails' }, async () => ({ content: [{ type: 'text', text: 'it broke' }], isError: true }));
    server.registerTool('mixed', { description: 'Text and an image' }, async () => ({
      content: [{ type: 'text', text: 'a picture:' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }],
    }));
    server.registerTool('hang', { description: 'Never answers' }, async (extraInfo) => {
      await new Promise<void>((resolve) => {
        hanging.add(resolve);
        extraInfo.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      return { content: [{ type: 'text', text: 'late' }] };
    });
    const entry = { server, extras: new Map<string, RegisteredTool>() };
    syncExtras(entry);
    servers.add(entry);
    return server;
  };

  const http: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    seen.push(req.headers);
    if (!authorize(req.headers)) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized', got: req.headers.authorization ?? null }));
      return;
    }
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    try {
      if (transport === 'streamable_http' && url.pathname === '/mcp') {
        const sessionId = req.headers['mcp-session-id'];
        const known = typeof sessionId === 'string' ? streamable.get(sessionId) : undefined;
        if (known) return await known.handleRequest(req, res, body);
        if (sessionId !== undefined || req.method !== 'POST' || !isInitializeRequest(body)) {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
          return;
        }
        sessionCount++;
        const created = new StreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), onsessioninitialized: (id) => void streamable.set(id, created) });
        await newServer().connect(created);
        return await created.handleRequest(req, res, body);
      }
      if (transport === 'sse' && url.pathname === '/sse' && req.method === 'GET') {
        sessionCount++;
        const created = new SSEServerTransport('/messages', res);
        sse.set(created.sessionId, created);
        res.on('close', () => sse.delete(created.sessionId));
        await newServer().connect(created);
        return;
      }
      if (transport === 'sse' && url.pathname === '/messages' && req.method === 'POST') {
        const known = sse.get(url.searchParams.get('sessionId') ?? '');
        if (known) return await known.handlePostMessage(req, res, body);
        res.writeHead(404).end('Session not found');
        return;
      }
      res.writeHead(404).end();
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${transport === 'sse' ? '/sse' : '/mcp'}`,
    seen,
    sessions: () => sessionCount,
    setExtraTools(names) {
      extra = [...names];
      for (const entry of servers) syncExtras(entry);
    },
    forgetSessions() {
      streamable.clear();
    },
    async close() {
      for (const resolve of hanging) resolve();
      await Promise.all([...streamable.values(), ...sse.values()].map((t) => t.close().catch(() => {})));
      await Promise.all([...servers].map((entry) => entry.server.close().catch(() => {})));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

/** A server that accepts TCP connections and never answers a byte. */
export async function startSilentServer(): Promise<{ url: (path: string) => string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port nothing listens on (bound, then released). */
export async function refusedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
