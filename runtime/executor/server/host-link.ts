// The server's view of one executor host, whichever isolation runs it: a line channel plus
// lifecycle. The dispatcher only ever talks to hosts through this.
import type { HostHello } from '../host/index.ts';

export interface HostExit {
  reason: string;
  /** The host's own output said it ran out of memory. */
  outOfMemory: boolean;
}

export interface HostEvents {
  /** One or more '\n'-joined lines from the host. */
  onLines(batch: string): void;
  /** Called once, after the host is gone (its channel closed and its process reaped). */
  onExit(exit: HostExit): void;
}

export interface HostLink {
  readonly name: string;
  readonly hello: HostHello;
  /** Queues one line; lines written in one tick leave together. */
  send(text: string): void;
  /** Hard stop now (SIGKILL for a process); onExit follows. */
  kill(reason: string): void;
  /** Stop message first, hard stop after a grace period; resolves when gone. */
  stop(): Promise<void>;
}
