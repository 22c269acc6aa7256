// One connection to an MCP server: the official SDK's client over streamable HTTP or SSE, with
// every request of it abortable at once (close, handshake limit), answers to posted messages
// bounded in size, and the SDK's failures turned into McpError without any secret in the text.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError as ProtocolError } from '@modelcontextprotocol/sdk/types.js';
import { McpError } from './mcp-contract.ts';

export interface ConnectionTarget {
  url: URL;
  transport: 'streamable_http' | 'sse';
  headers: Record<string, string>;
  /** Secret values and the headers made of them: cut out of every message. */
  secrets: string[];
  connectTimeoutMs: number;
}

export interface McpConnection {
  client: Client;
  /** Ends the connection and every request of it. */
  close(): Promise<void>;
}

/** The largest answer to one posted message (streamable HTTP); a bigger one fails the request. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** Characters of a foreign error message kept in ours. */
const MAX_REASON_CHARS = 500;

class AnswerTooLargeError extends Error {
  override name = 'AnswerTooLargeError';
}

/**
 * Connects and completes the MCP handshake within `connectTimeoutMs` (else McpError TIMEOUT; a
 * refused or failed connection is UNREACHABLE). `onClosed` is told when the connection ends on
 * its own (the server closed it), not when `close()` ends it.
 */
export async function openConnection(target: ConnectionTarget, onClosed: () => void): Promise<McpConnection> {
  // Aborting this ends every request the transports make, a GET stream held open included.
  const lifetime = new AbortController();
  const boundFetch: FetchLike = async (input, init) => {
    const signal = init?.signal ? AbortSignal.any([init.signal, lifetime.signal]) : lifetime.signal;
    const response = await fetch(input, { ...init, signal });
    return init?.method === 'POST' ? bounded(response) : response;
  };
  const options = { requestInit: { headers: target.headers }, fetch: boundFetch };
  const transport = target.transport === 'sse' ? new SSEClientTransport(target.url, options) : new StreamableHTTPClientTransport(target.url, options);
  const client = new Client({ name: 'api-platform', version: '1.0.0' });

  let ended = false;
  const close = async () => {
    if (ended) return;
    ended = true;
    lifetime.abort();
    await client.close().catch(() => {});
  };
  client.onclose = () => {
    if (ended) return;
    ended = true;
    lifetime.abort();
    onClosed();
  };
  // Failures surface on the requests that meet them; a broken GET stream alone is no news.
  client.onerror = () => {};

  // Its own signal, not `lifetime`: a failed handshake closes the client, and that rejection must
  // not hide the failure's own.
  const handshake = AbortSignal.timeout(target.connectTimeoutMs);
  const stop = () => lifetime.abort(handshake.reason);
  handshake.addEventListener('abort', stop, { once: true });
  try {
    await untilAborted(client.connect(transport, { signal: handshake, timeout: target.connectTimeoutMs }), handshake);
    return { client, close };
  } catch (error) {
    await close();
    if (handshake.aborted) throw new McpError('TIMEOUT', `The MCP server at ${target.url.origin} did not complete the handshake within ${target.connectTimeoutMs} ms`);
    throw describeFailure(error, 'connect', target);
  } finally {
    handshake.removeEventListener('abort', stop);
  }
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * A failure of the SDK as McpError. JSON-RPC errors the server answered are TOOL_ERROR (after the
 * handshake), malformed answers too; everything about the connection itself is UNREACHABLE.
 */
export function describeFailure(error: unknown, phase: 'connect' | 'list' | 'call', target: Pick<ConnectionTarget, 'url' | 'secrets'>): McpError {
  if (error instanceof McpError) return error;
  const at = target.url.origin;
  const reason = redact(error instanceof Error ? error.message : String(error), target.secrets);
  if (error instanceof ProtocolError && error.code === ErrorCode.RequestTimeout) return new McpError('TIMEOUT', `The MCP server at ${at} did not answer in time`);
  if (phase !== 'connect' && error instanceof ProtocolError && error.code !== ErrorCode.ConnectionClosed) {
    return new McpError('TOOL_ERROR', `The MCP server at ${at} answered with an error: ${reason}`);
  }
  if (error instanceof AnswerTooLargeError) return new McpError('TOOL_ERROR', `The MCP server at ${at} sent ${reason}`);
  // The SDK checks answers with zod (`$ZodError` from zod/v4/core); JSON.parse throws SyntaxError.
  const malformed = error instanceof Error && (/^\$?ZodError$/.test(error.name) || error instanceof SyntaxError);
  if (phase !== 'connect' && malformed) return new McpError('TOOL_ERROR', `The MCP server at ${at} sent a malformed answer: ${reason}`);
  const status = error instanceof StreamableHTTPError || error instanceof SseError ? error.code : undefined;
  const refused = status !== undefined && status >= 400 ? ` (HTTP ${status}${status === 401 || status === 403 ? ': are the credentials right?' : ''})` : '';
  return new McpError('UNREACHABLE', `${phase === 'connect' ? 'Could not connect to' : 'Lost'} the MCP server at ${at}${refused}: ${reason}`);
}

/** `text` with every secret value cut out, and cut to a length fit for a message. */
function redact(text: string, secrets: string[]): string {
  let out = text;
  // Longest first: a header value holds the secret it was made of.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) if (secret.length > 0) out = out.replaceAll(secret, '[secret]');
  return out.length > MAX_REASON_CHARS ? `${out.slice(0, MAX_REASON_CHARS)}…` : out;
}

/** The response with its body cut off (an error) past MAX_ANSWER_BYTES. */
function bounded(response: Response): Response {
  if (!response.body) return response;
  let seen = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > MAX_ANSWER_BYTES) controller.error(new AnswerTooLargeError(`an answer over ${MAX_ANSWER_BYTES} bytes`));
      else controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(limit), { status: response.status, statusText: response.statusText, headers: response.headers });
}
