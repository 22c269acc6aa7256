// A stray rejection or exception outside any request (a timer, a client's event handler) is logged
// and the process keeps serving: no single request or background hiccup takes an origin down.
import type { Logger } from './log.ts';

export function installProcessGuards(log: Logger): void {
  process.on('unhandledRejection', (reason) => log.error('unhandled promise rejection (the process keeps running)', reason));
  process.on('uncaughtException', (error) => log.error('uncaught exception (the process keeps running)', error));
}
