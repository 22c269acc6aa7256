// The database version poll: the backstop behind every other channel (a lost announcement, a Redis
// that hangs) and the only channel without Redis. Chained, never overlapping; a poll stuck on a
// half-open connection is given up on after a while, so the backstop keeps running whatever the
// database client does.
import type { Logger } from '../index.ts';
import type { IndexSubscriber, IndexTarget } from './types.ts';

/** A version read slower than this (or the poll interval, if longer) marks the database unreachable. */
const MIN_POLL_ANSWER_MS = 1000;
/** After this many answer periods the next poll starts even if the last one never settled. */
const POLL_GIVE_UP_FACTOR = 5;

export interface PollHealth {
  /** Whether the last version poll reached the database. */
  databaseReachable: boolean;
  /** The version the database was at when last polled (null before the first poll). */
  databaseVersion: number | null;
  lastPollAt: string | null;
  pollMs: number;
}

export class DatabasePoll implements IndexSubscriber {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private databaseReachable = true;
  private databaseVersion: number | null = null;
  private lastPollAt: string | null = null;

  /** `databaseVersion`: the version the database is at (a one-row read). */
  constructor(private readonly o: { databaseVersion: () => Promise<number>; pollMs: number; log: Logger }) {}

  start(target: IndexTarget): void {
    this.schedule(target);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  health(): PollHealth {
    return { databaseReachable: this.databaseReachable, databaseVersion: this.databaseVersion, lastPollAt: this.lastPollAt, pollMs: this.o.pollMs };
  }

  private schedule(target: IndexTarget): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      let giveUp: ReturnType<typeof setTimeout> | undefined;
      const stuck = new Promise<void>((resolve) => (giveUp = setTimeout(resolve, this.answerMs * POLL_GIVE_UP_FACTOR)));
      void Promise.race([this.poll(target), stuck]).finally(() => {
        clearTimeout(giveUp);
        this.schedule(target);
      });
    }, this.o.pollMs);
    this.timer.unref?.();
  }

  private async poll(target: IndexTarget): Promise<void> {
    // A database that does not answer (a blackholed network, a client backing off its reconnects)
    // counts as unreachable once the answer is overdue.
    const overdue = setTimeout(() => (this.databaseReachable = false), this.answerMs);
    overdue.unref?.();
    let version: number;
    try {
      version = await this.o.databaseVersion();
    } catch {
      this.databaseReachable = false; // keep serving the last good index
      return;
    } finally {
      clearTimeout(overdue);
    }
    this.databaseReachable = true;
    this.databaseVersion = version;
    this.lastPollAt = new Date().toISOString();
    // A failed load is recorded by the holder, which keeps the last good index serving.
    if (version >= target.version) return target.toVersion(version).catch(() => undefined);
    // Serving a version the database never reached (a stray announcement): the database decides.
    this.o.log.warn(`index version ${target.version} is ahead of the database (${version}); reloading from the database`);
    await target.replace().catch(() => undefined);
  }

  /** How long a version read may take before the database counts as unreachable. */
  private get answerMs(): number {
    return Math.max(this.o.pollMs, MIN_POLL_ANSWER_MS);
  }
}
