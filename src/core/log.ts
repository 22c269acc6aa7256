// The process log (DESIGN §12): pino writing one JSON object a line to stderr (stdout stays for the
// bootstrap key), each with `time`, `level` and `msg`; child loggers carry what a line belongs to
// (`oid` of a request, `executionId`/`endpointId` of an invocation, `runId` of a run).
// LOG_FORMAT=pretty prints the same lines as text, for a person at a terminal.
import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';
import { batchedSink } from './log-sink.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
type LogFormat = 'json' | 'pretty';
type Fields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: Fields): void;
  info(message: string, fields?: Fields): void;
  warn(message: string, fields?: Fields): void;
  /** `error`: an Error (logged as `err` with its stack), fields, or anything else (as `error`). */
  error(message: string, error?: unknown): void;
  /** A logger whose every line carries `bindings`. */
  child(bindings: Fields): Logger;
  /**
   * Runs `fn` so that every line written in it, and in what it starts and awaits, carries `fields`
   * (a control-plane request's oid, whichever part writes the line).
   */
  within<T>(fields: Fields, fn: () => T): T;
  /** Runs `fn` outside any `within`: background work a request merely woke (the run scheduler). */
  outside<T>(fn: () => T): T;
  /**
   * The access line of a request at info, `msg` "request": the same line `info` would write, built
   * directly (one per request on the runtime's hot path: about a fifth of pino's cost).
   */
  access(fields: AccessFields): void;
}

/** An access line's fields: strings and numbers only, under plain identifier keys. */
type AccessFields = Record<string, string | number>;

/** The time as ISO 8601, made once per millisecond however many lines share it. */
let isoMs = -1;
let isoText = '';
function isoNow(): string {
  const now = Date.now();
  if (now !== isoMs) {
    isoMs = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}


export interface LoggerOptions {
  format?: LogFormat;
  /** Where lines go (tests); default stderr, gathered and written every 50 ms or 64 KiB (./log-sink.ts). */
  write?: (line: string) => void;
}

const STDERR = 2;

/** The process's logger; `name` says which process it is (platform, control-plane, runtime). */
export function createLogger(level: LogLevel, name: string, options: LoggerOptions = {}): Logger {
  const format = options.format ?? 'json';
  const write = options.write ?? batchedSink(STDERR).write;
  const destination = { write: format === 'pretty' ? (line: string) => write(prettyLine(line)) : write };
  const context = new AsyncLocalStorage<Fields>();
  const root = pino(
    {
      level,
      // A new object each time: pino merges the line's fields into it.
      mixin: () => {
        const fields = context.getStore();
        return fields ? { ...fields } : {};
      },
      base: { name },
      messageKey: 'msg',
      // errorFields() made `err` already (pino's own serializer would copy every property of an Error).
      serializers: { err: (value: unknown) => value },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // No `redact`: it made every line 3-5 times as costly (measured on Bun), and the access line
      // is written per request. Credentials stay out of lines by construction: no request header
      // or body is ever logged, and test/ops/logs.test.ts looks for keys and tokens in the output.
    },
    destination,
  );
  // The direct access line serves the JSON format; pretty lines go through pino like any other.
  const direct = format === 'json' && root.isLevelEnabled('info') ? write : undefined;
  return wrap(root, context, direct, jsonMembers({ name }));
}

/** `"key":value,…` of `fields`, for splicing into a line. */
const jsonMembers = (fields: Fields) => JSON.stringify(fields).slice(1, -1);

/**
 * `direct`: where access lines go, or undefined when they go through pino (pretty format, or info
 * disabled: then pino drops them). `members`: the logger's bindings as JSON members.
 */
function wrap(p: pino.Logger, context: AsyncLocalStorage<Fields>, direct: ((line: string) => void) | undefined, members: string): Logger {
  const access = direct
    ? (fields: AccessFields) => {
        const store = context.getStore();
        let line = `{"level":"info","time":"${isoNow()}",${members}${store ? `,${jsonMembers(store)}` : ''}`;
        for (const key in fields) {
          const value = fields[key]!;
          line += `,"${key}":${typeof value === 'number' ? String(value) : JSON.stringify(value)}`;
        }
        direct(`${line},"msg":"request"}\n`);
      }
    : (fields: AccessFields) => p.info(fields, 'request');
  return {
    debug: (message, fields) => (fields ? p.debug(fields, message) : p.debug(message)),
    info: (message, fields) => (fields ? p.info(fields, message) : p.info(message)),
    warn: (message, fields) => (fields ? p.warn(fields, message) : p.warn(message)),
    error: (message, error) => (error === undefined ? p.error(message) : p.error(errorFields(error), message)),
    child: (bindings) => wrap(p.child(bindings), context, direct, `${members},${jsonMembers(bindings)}`),
    within: (fields, fn) => context.run(fields, fn),
    outside: (fn) => context.exit(fn),
    access,
  };
}

/**
 * An error as a line carries it: `err` with its type, message, stack and code only (pino's own
 * serializer copies every property: postgres.js's URL error holds the whole DATABASE_URL in
 * `input`, drizzle's query error its parameters), credentials in URLs masked; anything else under
 * `error`, as text (a plain object spread into the line could carry anything, `msg` and `time` too).
 */
function errorFields(error: unknown): Fields {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return {
      err: {
        type: error.name,
        message: maskCredentials(error.message),
        ...(error.stack ? { stack: maskCredentials(error.stack) } : {}),
        ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
      },
    };
  }
  if (error !== null && typeof error === 'object' && !Array.isArray(error)) {
    let text: string;
    try {
      text = JSON.stringify(error);
    } catch {
      text = Object.prototype.toString.call(error);
    }
    return { error: maskCredentials(text.length > 2000 ? `${text.slice(0, 2000)}…` : text) };
  }
  return { error: maskCredentials(String(error)) };
}

/**
 * `scheme://user:password@host` → `scheme://user:***@host`, wherever it appears in `text`; and a
 * failed query's parameters (drizzle's "Failed query: …\nparams: …": a key's digest, a user's
 * data) are left out.
 */
const maskCredentials = (text: string): string => text.replace(/\nparams: [^\n]*/g, '\nparams: (not logged)').replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@]*@/gi, '$1***@');

const PRETTY_SKIP = new Set(['time', 'level', 'msg', 'name', 'pid']);

/** A JSON line as `time LEVEL [name] msg {fields}`, the text format of LOG_FORMAT=pretty. */
function prettyLine(json: string): string {
  const entry = JSON.parse(json) as Fields;
  const fields: Fields = {};
  for (const key in entry) if (!PRETTY_SKIP.has(key)) fields[key] = entry[key];
  const extra = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
  return `${String(entry.time)} ${String(entry.level).toUpperCase()} [${String(entry.name)}] ${String(entry.msg)}${extra}\n`;
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, access() {}, child: () => silentLogger, within: (_, fn) => fn(), outside: (fn) => fn() };
