// The platform seam (types.ts): what differs between Bun and Deno, chosen once for the process and
// every thread of it when this module loads. Bun is the only implementation so far; a Deno one
// will be chosen here (by a dynamic import, since bun.ts imports bun:sqlite).
import { bun } from './bun.ts';
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

export const platform: Platform = bun;
