// Where api.log(...) lines go: the runtime's log, one entry per line with the Endpoint and the
// execution it came from, at most LINES_PER_SECOND across all components (the rest are counted
// and reported), so a chatty component cannot flood the log.
import type { Logger } from '../src/core/index.ts';

const LINES_PER_SECOND = 100;

export class ComponentLog {
  private windowStart = 0;
  private inWindow = 0;
  private dropped = 0;

  constructor(private readonly log: Logger) {}

  /** The lines of one invocation: `h` names its request (oid) and execution. */
  write(endpointId: string, h: { oid: string; executionId: string }, lines: readonly string[]): void {
    const now = Date.now();
    if (now - this.windowStart >= 1000) {
      if (this.dropped > 0) this.log.warn(`component log: ${this.dropped} lines dropped (over ${LINES_PER_SECOND} per second)`);
      this.windowStart = now;
      this.inWindow = 0;
      this.dropped = 0;
    }
    for (const line of lines) {
      if (++this.inWindow > LINES_PER_SECOND) {
        this.dropped++;
        continue;
      }
      this.log.info('component log', { oid: h.oid, endpointId, executionId: h.executionId, line });
    }
  }
}
