// The platform seam (types.ts): what differs between Bun and Deno, chosen once for the process and
// every thread of it when this module loads (Deno is the one with a `Deno` global). What is
// exported is the implementation itself, so a call costs what a call to it costs. Both modules
// load on either runtime: neither imports what the other cannot (bun.ts requires bun:sqlite on use).
import { bun } from './bun.ts';
import { deno } from './deno.ts';
import type { Platform } from './types.ts';

export type {
  ChildProcess,
  FetchHandler,
  HttpServer,
  Platform,
  SqliteConnection,
  SqliteOrm,
  SqliteValue,
  ThreadWorker,
} from './types.ts';

export const platform: Platform = 'Deno' in globalThis ? deno : bun;
