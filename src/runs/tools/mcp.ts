// MCP servers as tool sources (DESIGN §5 Tools): a server's tools, listed with the official SDK
// and cached for manifestTtlMs, and calls of them; connections are pooled per server and its
// credentials, every wait is bounded, and an unreachable server fails within connectTimeoutMs.
import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Logger } from '../../core/index.ts';
import { canonicalJson } from '../../core/lib/index.ts';
import { plainHttpRefusal } from '../../core/lib/index.ts';
import { McpError, type McpServerConfig, type McpTool } from './mcp-contract.ts';
import { credentialsFor } from './mcp-auth.ts';
import { describeFailure, openConnection, untilAborted, type ConnectionTarget, type McpConnection } from './mcp-connection.ts';

export { McpError, type McpServerConfig, type McpTool } from './mcp-contract.ts';

const DEFAULT_MANIFEST_TTL_MS = 60_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** A plugin's timeoutMs default (DESIGN §5 Tools), for a caller passing none that is usable. */
const DEFAULT_CALL_TIMEOUT_MS = 30_000;
/** A connection unused this long is closed (checked whenever one is asked for). */
const IDLE_CLOSE_MS = 5 * 60_000;
/** Open connections at most; beyond, the least recently used idle ones are closed. */
const MAX_CONNECTIONS = 64;
/** tools/list pages followed at most: a server that pages forever is cut off. */
const MAX_LIST_PAGES = 100;

interface McpClientsDeps {
  /** The secrets store's reveal(): the plaintext, or null when absent or in another workspace. */
  reveal(workspaceId: string, secretId: string): Promise<string | null>;
  /** MCP_ALLOW_HTTP_LOOPBACK: http:// is allowed to loopback hosts. */
  allowHttpLoopback: boolean;
  log: Logger;
}

/** A configuration checked for what can be checked without the network or the secrets. */
interface Checked {
  server: McpServerConfig;
  url: URL;
  transport: 'streamable_http' | 'sse';
  connectTimeoutMs: number;
  manifestTtlMs: number;
}

interface Pooled {
  key: string;
  opening: Promise<McpConnection>;
  lastUsed: number;
  /** Requests using it now: a busy connection is never closed for idleness. */
  busy: number;
}

const positive = (value: number | undefined, otherwise: number) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : otherwise);

export class McpClients {
  readonly #deps: McpClientsDeps;
  readonly #manifests = new Map<string, { tools: McpTool[]; expiresAt: number }>();
  readonly #listing = new Map<string, Promise<McpTool[]>>();
  readonly #pool = new Map<string, Pooled>();
  #closed = false;

  constructor(deps: McpClientsDeps) {
    this.#deps = deps;
  }

  /**
   * The server's tools, cached for manifestTtlMs (default 60000) per (workspace, plugin id,
   * config); connect+handshake bounded by connectTimeoutMs (default 10000), connecting and listing
   * together by twice that. Concurrent askers share one listing. Throws McpError.
   */
  async tools(workspaceId: string, pluginId: string, server: McpServerConfig): Promise<McpTool[]> {
    const checked = this.#check(server);
    const key = canonicalJson([workspaceId, pluginId, server]);
    const cached = this.#manifests.get(key);
    if (cached && cached.expiresAt > Date.now()) return copies(cached.tools);
    let listing = this.#listing.get(key);
    if (!listing) {
      listing = this.#list(workspaceId, pluginId, checked)
        .then((tools) => {
          this.#remember(key, tools, checked.manifestTtlMs);
          return tools;
        })
        .finally(() => this.#listing.delete(key));
      this.#listing.set(key, listing);
    }
    return copies(await listing);
  }

  /**
   * Calls a remote tool by its remote name; bounded by timeoutMs (connecting included); aborted by
   * signal, rejecting with the signal's reason. Result content as text (JSON of the content array,
   * or the text parts joined) and whether the server flagged isError. Throws McpError (TIMEOUT,
   * UNREACHABLE; TOOL_ERROR for an error answer, BAD_CONFIG before any request).
   */
  async call(
    workspaceId: string,
    pluginId: string,
    server: McpServerConfig,
    remoteName: string,
    args: Record<string, unknown>,
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<{ text: string; isError: boolean }> {
    options.signal.throwIfAborted();
    const target = await this.#target(workspaceId, pluginId, this.#check(server));
    const timeoutMs = positive(options.timeoutMs, DEFAULT_CALL_TIMEOUT_MS);
    const limit = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([options.signal, limit]);
    try {
      const result = await this.#using(target, signal, (client) =>
        client.callTool({ name: remoteName, arguments: args }, undefined, { signal, timeout: timeoutMs }), sessionGone);
      return { text: resultText(result), isError: result.isError === true };
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      if (limit.aborted) throw new McpError('TIMEOUT', `The MCP tool ${remoteName} did not answer within ${timeoutMs} ms`);
      throw describeFailure(error, 'call', target);
    }
  }

  /** Closes every connection; later calls fail UNREACHABLE. */
  async close(): Promise<void> {
    this.#closed = true;
    const pooled = [...this.#pool.values()];
    this.#pool.clear();
    this.#manifests.clear();
    await Promise.all(pooled.map((entry) => entry.opening.then((connection) => connection.close(), () => {})));
  }

  #check(server: McpServerConfig): Checked {
    if (typeof server.url !== 'string' || !URL.canParse(server.url)) throw new McpError('BAD_CONFIG', 'The MCP server has no valid url');
    const url = new URL(server.url);
    const refusal = plainHttpRefusal(url, this.#deps.allowHttpLoopback);
    if (refusal) throw new McpError('BAD_CONFIG', `The MCP url ${refusal}`);
    if (url.username !== '' || url.password !== '') throw new McpError('BAD_CONFIG', 'The MCP url may not carry credentials: use authMode and the secrets store');
    const transport = server.transport ?? 'streamable_http';
    if (transport !== 'streamable_http' && transport !== 'sse') throw new McpError('BAD_CONFIG', `Unknown MCP transport ${String(transport)}`);
    return {
      server,
      url,
      transport,
      connectTimeoutMs: positive(server.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS),
      manifestTtlMs: positive(server.manifestTtlMs, DEFAULT_MANIFEST_TTL_MS),
    };
  }

  /** The connection target with the credentials read now; its pool key is a digest (no secret in a map key). */
  async #target(workspaceId: string, pluginId: string, checked: Checked): Promise<ConnectionTarget & { key: string }> {
    const { headers, secrets } = await credentialsFor(workspaceId, checked.server, this.#deps.reveal);
    const key = createHash('sha256').update(canonicalJson([workspaceId, pluginId, checked.transport, checked.url.href, headers, checked.connectTimeoutMs])).digest('base64url');
    return { key, url: checked.url, transport: checked.transport, headers, secrets, connectTimeoutMs: checked.connectTimeoutMs };
  }

  async #list(workspaceId: string, pluginId: string, checked: Checked): Promise<McpTool[]> {
    const target = await this.#target(workspaceId, pluginId, checked);
    // Connecting has connectTimeoutMs (openConnection); listing gets as long again, so a server that
    // connects and never lists holds nothing either.
    const limit = AbortSignal.timeout(2 * checked.connectTimeoutMs);
    let tools: McpTool[];
    try {
      tools = await this.#using(target, limit, async (client) => {
        const listed: McpTool[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < MAX_LIST_PAGES; page++) {
          const answer = await client.listTools(cursor === undefined ? {} : { cursor }, { signal: limit, timeout: checked.connectTimeoutMs });
          for (const tool of answer.tools) listed.push(toolOf(tool));
          cursor = answer.nextCursor;
          if (cursor === undefined) break;
        }
        return listed;
      }, () => true);
    } catch (error) {
      if (limit.aborted) throw new McpError('TIMEOUT', `The MCP server at ${target.url.origin} did not list its tools in time`);
      throw describeFailure(error, 'list', target);
    }
    this.#deps.log.debug('MCP tools listed', { pluginId, transport: target.transport, origin: target.url.origin, tools: tools.length });
    return tools;
  }

  /**
   * Runs `work` on the pooled connection for `target` (opened if need be). A failure of the
   * connection itself drops it from the pool; when the connection was an old one and `retry`
   * says the request never reached the server, the work runs once more on a new connection.
   */
  async #using<T>(target: ConnectionTarget & { key: string }, signal: AbortSignal, work: (client: Client) => Promise<T>, retry: (error: unknown) => boolean): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const { pooled, fresh } = this.#pooled(target);
      pooled.busy++;
      try {
        const connection = await untilAborted(pooled.opening, signal);
        return await work(connection.client);
      } catch (error) {
        const broken = !signal.aborted && describeFailure(error, 'call', target).code === 'UNREACHABLE';
        if (broken) this.#drop(pooled);
        if (broken && attempt === 0 && !fresh && retry(error)) continue;
        throw error;
      } finally {
        pooled.busy--;
        pooled.lastUsed = Date.now();
      }
    }
  }

  #pooled(target: ConnectionTarget & { key: string }): { pooled: Pooled; fresh: boolean } {
    if (this.#closed) throw new McpError('UNREACHABLE', 'The MCP clients are closed (the server is shutting down)');
    this.#sweep();
    const existing = this.#pool.get(target.key);
    if (existing) return { pooled: existing, fresh: false };
    let pooled: Pooled | undefined;
    // The server closing the connection drops it (never before `pooled` is set: that is later).
    const opening = openConnection(target, () => pooled && this.#drop(pooled));
    pooled = { key: target.key, opening, lastUsed: Date.now(), busy: 0 };
    // A failed opening leaves the pool at once: the next request tries again.
    opening.catch(() => pooled && this.#drop(pooled));
    this.#pool.set(target.key, pooled);
    return { pooled, fresh: true };
  }

  #drop(pooled: Pooled): void {
    if (this.#pool.get(pooled.key) === pooled) this.#pool.delete(pooled.key);
    pooled.opening.then((connection) => connection.close(), () => {});
  }

  /** Closes idle connections: unused for IDLE_CLOSE_MS, or the oldest beyond MAX_CONNECTIONS. */
  #sweep(): void {
    const now = Date.now();
    const idle = [...this.#pool.values()].filter((entry) => entry.busy === 0).sort((a, b) => a.lastUsed - b.lastUsed);
    let excess = this.#pool.size - MAX_CONNECTIONS + 1;
    for (const entry of idle) {
      if (excess > 0 || now - entry.lastUsed > IDLE_CLOSE_MS) this.#drop(entry);
      excess--;
    }
  }

  #remember(key: string, tools: McpTool[], ttlMs: number): void {
    const now = Date.now();
    for (const [other, entry] of this.#manifests) if (entry.expiresAt <= now) this.#manifests.delete(other);
    this.#manifests.set(key, { tools, expiresAt: now + ttlMs });
  }
}

/** The session the request was sent on is gone (server restarted): the request was not processed. */
function sessionGone(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return (error as { code?: unknown } | null)?.code === 404 || /\(HTTP 404\)|^Not connected$/.test(message);
}

function toolOf(tool: { name: string; description?: string; inputSchema?: unknown }): McpTool {
  const out: McpTool = { name: tool.name };
  if (typeof tool.description === 'string') out.description = tool.description;
  if (tool.inputSchema !== null && typeof tool.inputSchema === 'object') out.inputSchema = tool.inputSchema as Record<string, unknown>;
  return out;
}

/** Each caller gets its own array and tool objects: the cached manifest stays as listed. */
const copies = (tools: McpTool[]): McpTool[] => tools.map((tool) => structuredClone(tool));

/**
 * The text parts joined when the content is all text; else the content array as JSON (an answer
 * without content: its structuredContent, or a legacy toolResult, as JSON).
 */
function resultText(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? (result.content as { type?: unknown; text?: unknown }[]) : [];
  if (content.length > 0 && content.every((part) => part.type === 'text' && typeof part.text === 'string')) return content.map((part) => part.text).join('\n');
  if (content.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  if (content.length === 0 && result.toolResult !== undefined) return JSON.stringify(result.toolResult);
  return JSON.stringify(content);
}
