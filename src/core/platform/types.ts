// What differs between Bun and Deno, as the rest of the code base uses it: serving HTTP, SQLite,
// Worker threads, child processes, hashing, ids and timers. One implementation per platform
// (./bun.ts, ./deno.ts), chosen once in ./index.ts; no other file of src/ or runtime/ reaches the platform's
// own API (.dependency-cruiser.cjs, test/architecture.test.ts). File access goes through node:fs, which both platforms have.
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';

export interface Platform {
  /** Which runtime this is: what the executor starts its host programs with differs. */
  readonly name: 'bun' | 'deno';
  /** Serves HTTP: every request goes to `options.fetch`. */
  serve(options: ServeOptions): HttpServer;
  sqlite: SqliteDriver;
  /** A thread running the module at `url`. */
  startWorker(url: URL): ThreadWorker;
  /**
   * Starts `argv` in `cwd` with exactly `env`: no standard input, standard output and error piped,
   * and one end of a socketpair on its fd 3 (this process's end: connectChild).
   */
  spawn(argv: string[], options: { cwd: string; env: Record<string, string> }): ChildProcess;
  /** Runs `argv` to its end with an empty environment and no input or output: its exit code. Throws when it cannot start. */
  exitCodeOf(argv: string[]): number | null;
  /** The path of `command` on PATH, or null. */
  which(command: string): string | null;
  /** The stream socket to a child that spawn() started: this end of the socketpair on its fd 3. */
  connectChild(child: ChildProcess, handlers: ChannelHandlers): Promise<ChannelSocket>;
  /** SHA-256 of the UTF-8 of `text`, as lowercase hex. */
  sha256Hex(text: string): string;
  /** CRC-32 of the UTF-8 of `text`. */
  crc32(text: string): number;
  /** A UUIDv7 (hex form) whose time is `at` (epoch ms): time-ordered ids. */
  uuidv7(at: number): string;
  sleep(ms: number): Promise<void>;
}

/** The server a request arrived on, as the handler sees it. */
export interface HttpServer {
  /** The port bound (undefined only for a Unix socket, which this code base never asks for). */
  readonly port: number | undefined;
  readonly url: URL;
  /** Stops accepting; with `closeActiveConnections` false, the requests under way finish first. */
  stop(closeActiveConnections?: boolean): Promise<void>;
  /** Sets `request`'s idle timeout (0 disables it). */
  timeout(request: Request, seconds: number): void;
}

export type FetchHandler = (request: Request, server: HttpServer) => Response | Promise<Response>;

interface ServeOptions {
  port: number;
  hostname: string;
  /** The platform's own cap on a request body (past it, a bare 413 the handler never sees). */
  maxRequestBodySize: number;
  fetch: FetchHandler;
}

/** A value SQLite binds to a parameter. */
export type SqliteValue = string | number | bigint | boolean | null | Uint8Array;

/** Positional values, or one object of named ones. */
type SqliteParams = SqliteValue[] | [Record<string, SqliteValue>];

interface SqliteStatement {
  all(...params: SqliteParams): unknown[];
  get(...params: SqliteParams): unknown;
  run(...params: SqliteParams): { changes: number };
  finalize(): void;
}

/** A synchronous SQLite connection. */
export interface SqliteConnection {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  /** Prepared and run once (a statement kept for the connection's life). */
  query(sql: string): SqliteStatement;
  /** `fn` wrapped in BEGIN … COMMIT (ROLLBACK when it throws). */
  transaction<T>(fn: () => T): () => T;
  /** With `throwOnError`, every statement is finalized and the connection released now (or an error thrown). */
  close(throwOnError?: boolean): void;
}

interface SqliteOpenOptions {
  readonly?: boolean;
  /** Create the file when missing. */
  create?: boolean;
  /** Named parameters bind without their prefix; a missing parameter throws. */
  strict?: boolean;
}

/** Drizzle's SQLite query builder, whichever driver is under it. */
export type SqliteOrm<S extends Record<string, unknown>> = BaseSQLiteDatabase<'sync', void, S>;

interface SqliteDriver {
  /** A connection to `file`, a path or `:memory:`. */
  open(file: string, options: SqliteOpenOptions): SqliteConnection;
  /**
   * Drizzle over a connection that open() made, once the migrations in `migrationsFolder` are
   * applied. Loaded on first use: threads that only run statements never load drizzle (~40 ms).
   */
  orm<S extends Record<string, unknown>>(connection: SqliteConnection, schema: S, migrationsFolder: string): Promise<SqliteOrm<S>>;
}

/** A Worker thread, from the side that started it. */
export interface ThreadWorker {
  onmessage: ((event: MessageEvent) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
  postMessage(message: unknown): void;
  /** The buffers in `transfer` move to the thread, not copied. */
  postMessage(message: unknown, transfer: ArrayBuffer[]): void;
  /** 'close' once the thread has ended, however it ended. */
  addEventListener(type: 'error' | 'close', listener: (event: Event) => void): void;
  /** The thread no longer keeps the process alive. */
  unref(): void;
  terminate(): void;
}

export interface ChildProcess {
  readonly pid: number;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  /** Settles with the exit code once the process has ended. */
  readonly exited: Promise<number>;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | number | null;
  kill(signal?: number | NodeJS.Signals): void;
}

export interface ChannelSocket {
  /** Returns the number of bytes accepted; the rest waits for `drain`. */
  write(data: string | Uint8Array): number;
}

export interface ChannelHandlers {
  data(socket: ChannelSocket, chunk: Uint8Array): void;
  drain(socket: ChannelSocket): void;
  close(socket: ChannelSocket): void;
  end(socket: ChannelSocket): void;
  error(socket: ChannelSocket, error: Error): void;
}
