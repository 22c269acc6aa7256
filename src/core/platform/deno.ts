// The platform on Deno 2 (index.ts picks it when `globalThis.Deno` exists): Deno.serve, node:sqlite
// (deno-sqlite.ts), module Workers, node:child_process with the host's channel as an extra pipe,
// node:crypto and node:zlib. Deno's own API is declared here, the little of it this file uses.
import { spawn, spawnSync, type ChildProcess as NodeChild } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import type { Socket } from 'node:net';
import { delimiter, join } from 'node:path';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { openSqlite, sqliteOrm } from './deno-sqlite.ts';
import type { ChannelHandlers, ChannelSocket, ChildProcess, FetchHandler, HttpServer, Platform, ThreadWorker } from './types.ts';

interface DenoServer {
  readonly addr: { hostname: string; port: number };
  shutdown(): Promise<void>;
}
declare const Deno: {
  serve(
    options: { port: number; hostname: string; signal: AbortSignal; onListen(): void; onError(error: unknown): Response },
    handler: (request: Request) => Response | Promise<Response>,
  ): DenoServer;
};

/**
 * What a handler threw (the origins answer their own errors; this is the last resort): one JSON log
 * line with the error's type only (no message: it may quote the request) and a problem+json 500.
 */
function unhandled(error: unknown): Response {
  const type = error instanceof Error ? error.name : typeof error;
  process.stderr.write(`${JSON.stringify({ level: 'error', time: new Date().toISOString(), msg: 'request failed in the server', err: { type } })}\n`);
  const body = { type: 'about:blank', title: 'Internal error', status: 500, code: 'INTERNAL', detail: 'The request failed' };
  return new Response(JSON.stringify(body), { status: 500, headers: { 'content-type': 'application/problem+json' } });
}

function serve(options: { port: number; hostname: string; fetch: FetchHandler }): HttpServer {
  const abort = new AbortController();
  let view: HttpServer | undefined;
  const server = Deno.serve(
    {
      port: options.port,
      hostname: options.hostname,
      signal: abort.signal,
      // Deno prints "Listening on …" unless told otherwise; the start-up log says it.
      onListen: () => {},
      onError: unhandled,
    },
    (request) => options.fetch(request, view!),
  );
  const host = options.hostname === '0.0.0.0' ? '127.0.0.1' : options.hostname;
  view = {
    port: server.addr.port,
    url: new URL(`http://${host}:${server.addr.port}/`),
    stop: async (closeActiveConnections = false) => {
      if (closeActiveConnections) abort.abort();
      await server.shutdown();
    },
    // Deno.serve has no idle timeout on a response being streamed: an event stream's quiet
    // stretches between heartbeats are never cut, so there is nothing to switch off.
    timeout: () => {},
  };
  return view;
}

/**
 * A module Worker with what the seam promises and Deno's Worker lacks: a 'close' event once it has
 * ended (terminated, or failed with an error nobody handled; Deno has no such event), and unref()
 * (Deno has none: a thread keeps the process alive, which a server is anyway).
 */
function startWorker(url: URL): ThreadWorker {
  const worker = new Worker(url.href, { type: 'module' });
  const onClose: ((event: Event) => void)[] = [];
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    queueMicrotask(() => onClose.forEach((listener) => listener(new Event('close'))));
  };
  // Deno ends a Worker whose error nobody handled, and passes the error on to this thread: handled
  // here, as Bun does (its 'error', then 'close').
  worker.addEventListener('error', (event) => {
    event.preventDefault();
    close();
  });
  return {
    get onmessage() {
      return worker.onmessage;
    },
    set onmessage(handler) {
      worker.onmessage = handler;
    },
    get onerror() {
      return worker.onerror as ((event: ErrorEvent) => void) | null;
    },
    set onerror(handler) {
      worker.onerror = handler;
    },
    postMessage: (message: unknown, transfer: ArrayBuffer[] = []) => worker.postMessage(message, transfer),
    addEventListener: (type, listener) => (type === 'close' ? onClose.push(listener) : worker.addEventListener(type, listener)),
    unref: () => {},
    terminate: () => {
      worker.terminate();
      close();
    },
  };
}

/** A child's process as the seam shapes it, over node:child_process; its channel is the extra pipe on fd 3. */
function childOf(child: NodeChild): ChildProcess {
  const exited = new Promise<number>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
  return {
    pid: child.pid ?? -1,
    stdout: Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    stderr: Readable.toWeb(child.stderr!) as ReadableStream<Uint8Array>,
    exited,
    get exitCode() {
      return child.exitCode;
    },
    get signalCode() {
      return child.signalCode;
    },
    kill: (signal) => void child.kill(signal),
    channel: child.stdio[3] as Socket,
  } as ChildProcess & { channel: Socket };
}

function connectChild(child: ChildProcess, handlers: ChannelHandlers): Promise<ChannelSocket> {
  const socket = (child as ChildProcess & { channel: Socket }).channel;
  const channel: ChannelSocket = {
    // Node's socket takes every write (it buffers what the pipe does not), so all is accepted.
    write: (data) => (socket.destroyed ? -1 : (socket.write(data), typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength)),
  };
  socket.on('data', (chunk: Buffer) => handlers.data(channel, chunk));
  socket.on('drain', () => handlers.drain(channel));
  socket.on('end', () => handlers.end(channel));
  socket.on('close', () => handlers.close(channel));
  socket.on('error', (error) => handlers.error(channel, error));
  return Promise.resolve(channel);
}

function which(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const path = join(dir, command);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return null;
}

let lastMs = -1;
let sequence = 0;

/**
 * RFC 9562 UUIDv7: 48 bits of milliseconds, version 7, then a 12-bit sequence that counts up within
 * a millisecond (from a random start, as Bun's does) so ids made in one millisecond stay in order,
 * and random bits with the variant.
 */
function uuidv7(at: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const ms = Math.max(0, Math.floor(at));
  sequence = ms === lastMs ? (sequence + 1) & 0xfff : bytes[7]! | ((bytes[6]! & 0x07) << 8);
  lastMs = ms;
  let time = ms;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = time % 256;
    time = Math.floor(time / 256);
  }
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const deno: Platform = {
  name: 'deno',
  serve,
  sqlite: { open: openSqlite, orm: sqliteOrm },
  startWorker,
  spawn: (argv, { cwd, env }) => childOf(spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] })),
  exitCodeOf: (argv) => {
    const result = spawnSync(argv[0]!, argv.slice(1), { env: {}, stdio: 'ignore' });
    if (result.error) throw result.error;
    return result.status;
  },
  which,
  connectChild,
  sha256Hex: (text) => createHash('sha256').update(text).digest('hex'),
  crc32: (text) => crc32(text),
  uuidv7,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
