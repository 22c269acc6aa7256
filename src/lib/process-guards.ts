// A stray rejection or exception outside any request (a timer, a client's event handler) is logged
// and the process keeps serving: no single request or background hiccup takes an origin down.
import { maxHeaderSize } from 'node:http';
import type { Logger } from '../core/index.ts';
import { platform } from '../core/platform/index.ts';

/** What the start scripts give Bun (--max-http-header-size): a list query of 1000 values fits. */
const HEADER_LIMIT_BYTES = 131_072;

export function installProcessGuards(log: Logger): void {
  process.on('unhandledRejection', (reason) => log.error('unhandled promise rejection (the process keeps running)', reason));
  process.on('uncaughtException', (error) => log.error('uncaught exception (the process keeps running)', error));
  // Bun answers longer request heads itself, before any handler, with a bare 431 (Deno.serve has
  // no such flag, and node:http's value says nothing about it).
  if (platform.name === 'bun' && maxHeaderSize < HEADER_LIMIT_BYTES) {
    log.warn(`started without --max-http-header-size=${HEADER_LIMIT_BYTES} (as the npm start scripts pass it): request lines and headers over ${maxHeaderSize} bytes, such as a list filter of ~700 values, get a bare 431`);
  }
}
