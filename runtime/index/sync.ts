// Keeps a runtime's index current: an in-process subscription (embedded), a Redis subscription
// (scale-out), and always a version poll against the database as the backstop. A full reload
// follows every Redis (re)subscription, since pub/sub drops messages while disconnected.
import type { Redis } from 'ioredis';
import type { Logger } from '../../src/core/log.ts';
import { REDIS_COMMAND_TIMEOUT_MS, redisAnswers, type IndexKeys } from '../../src/core/redis.ts';
import { SNAPSHOT_FORMAT, type IndexSnapshot } from '../../src/core/definitions/index-snapshot.ts';
import type { IndexHolder } from './holder.ts';

export const DEFAULT_POLL_MS = 2000;
/** A version read slower than this (or the poll interval, if longer) marks the database unreachable. */
const MIN_POLL_ANSWER_MS = 1000;
/** After this many answer periods the next poll starts even if the last one never settled. */
const POLL_GIVE_UP_FACTOR = 5;

export interface IndexSyncOptions {
  holder: IndexHolder;
  /** Builds a snapshot from the database (the source of truth). */
  fromDatabase: () => Promise<IndexSnapshot>;
  /** The version the database is at (a one-row read). */
  databaseVersion: () => Promise<number>;
  /** Subscribes to in-process publication (embedded mode). */
  local?: (listener: (version: number) => Promise<void>) => () => void;
  redis?: { client: Redis; subscriber: Redis; keys: IndexKeys };
  /** Version poll interval; default DEFAULT_POLL_MS. */
  pollMs?: number;
  log: Logger;
}

export interface IndexSyncHealth {
  mode: 'embedded' | 'redis' | 'database-poll';
  /**
   * Announcements can arrive: the subscriber is connected and its SUBSCRIBE confirmed, and Redis
   * answered the last poll's PING (a hung server keeps its connections open) (null without Redis).
   */
  redisConnected: boolean | null;
  /** Whether the last version poll reached the database. */
  databaseReachable: boolean;
  /** The version the database was at when last polled (null before the first poll). */
  databaseVersion: number | null;
  lastPollAt: string | null;
  pollMs: number;
}

export class IndexSync {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private unsubscribe: (() => void) | null = null;
  private subscribed = false;
  private databaseReachable = true;
  private databaseVersion: number | null = null;
  /** Redis answered its last command: while it does not, snapshots come from the database at once. */
  private redisAnswering = true;
  private lastPollAt: string | null = null;
  private readonly pollMs: number;

  constructor(private readonly o: IndexSyncOptions) {
    this.pollMs = o.pollMs ?? DEFAULT_POLL_MS;
  }

  /** Loads the first index (fails the start when the database cannot give one) and starts listening. */
  async start(): Promise<void> {
    await this.o.holder.refresh(this.o.fromDatabase);
    if (this.o.local) this.unsubscribe = this.o.local((version) => this.toVersion(version));
    if (this.o.redis) {
      this.listenRedis(this.o.redis.subscriber, this.o.redis.keys.channel);
      // A new connection has just been answered (ioredis is ready after its handshake).
      this.o.redis.client.on('ready', () => (this.redisAnswering = true));
    }
    this.schedulePoll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.unsubscribe?.();
  }

  health(): IndexSyncHealth {
    return {
      mode: this.o.redis ? 'redis' : this.o.local ? 'embedded' : 'database-poll',
      redisConnected: this.o.redis ? this.o.redis.subscriber.status === 'ready' && this.subscribed && this.redisAnswering : null,
      databaseReachable: this.databaseReachable,
      databaseVersion: this.databaseVersion,
      lastPollAt: this.lastPollAt,
      pollMs: this.pollMs,
    };
  }

  private listenRedis(subscriber: Redis, indexChannel: string): void {
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== indexChannel) return;
      const version = Number(message);
      if (Number.isInteger(version)) void this.toVersion(version).catch(() => undefined);
    });
    subscriber.on('close', () => {
      this.subscribed = false;
    });
    // SUBSCRIBE on every connection ourselves: the client has no offline queue, so a SUBSCRIBE sent
    // before the first connection is refused, and ioredis only re-subscribes channels it already
    // had. Each (re)subscription is followed by a reload, since announcements are lost meanwhile.
    subscriber.on('ready', () => void this.subscribe(subscriber, indexChannel, true));
    // Already connected: the index was just loaded, so no reload is needed.
    if (subscriber.status === 'ready') void this.subscribe(subscriber, indexChannel, false);
  }

  private async subscribe(subscriber: Redis, channel: string, reload: boolean): Promise<void> {
    try {
      await subscriber.subscribe(channel);
      this.subscribed = true;
    } catch (error) {
      this.o.log.warn('index subscribe failed; retrying on the next connection', { error: String(error) });
      return;
    }
    if (!reload) return;
    // Read the database only once subscribed, so no version falls between the reload and the channel.
    this.o.log.info('index subscriber connected; reloading the index');
    await this.o.holder.refresh(this.o.fromDatabase).catch(() => undefined); // the poll retries
  }

  /** Moves to `version` if newer: from the Redis cache when it has it, else from the database. */
  private async toVersion(version: number): Promise<void> {
    if (version <= this.o.holder.version) return;
    await this.o.holder.refresh(async () => (await this.fromRedis(version)) ?? this.o.fromDatabase());
  }

  private async fromRedis(version: number): Promise<IndexSnapshot | null> {
    const redis = this.o.redis;
    if (!redis || redis.client.status !== 'ready' || !this.redisAnswering) return null;
    let text: string | null;
    try {
      text = await redis.client.get(redis.keys.snapshot(version));
    } catch {
      // Refused, or no answer within the command timeout: until a PING is answered, skip Redis.
      this.redisAnswering = false;
      return null;
    }
    try {
      const snapshot = text ? (JSON.parse(text) as IndexSnapshot) : null;
      return snapshot?.version === version && snapshot.format === SNAPSHOT_FORMAT ? snapshot : null;
    } catch {
      return null;
    }
  }

  /** Each poll asks Redis for a PING, without waiting on it: the answer (or its absence) decides whether snapshots are read there. */
  private probeRedis(): void {
    const redis = this.o.redis;
    if (!redis) return;
    void redisAnswers(redis.client, REDIS_COMMAND_TIMEOUT_MS).then((answers) => {
      this.redisAnswering = answers;
    });
  }

  /**
   * Chained, not an interval: polls never overlap. A poll stuck on a half-open connection is given
   * up on after a while, so the backstop keeps running whatever the database client does.
   */
  private schedulePoll(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      let giveUp: ReturnType<typeof setTimeout> | undefined;
      const stuck = new Promise<void>((resolve) => (giveUp = setTimeout(resolve, this.answerMs * POLL_GIVE_UP_FACTOR)));
      void Promise.race([this.poll(), stuck]).finally(() => {
        clearTimeout(giveUp);
        this.schedulePoll();
      });
    }, this.pollMs);
    this.timer.unref?.();
  }

  private async poll(): Promise<void> {
    this.probeRedis();
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
    if (version >= this.o.holder.version) return this.toVersion(version).catch(() => undefined);
    // Serving a version the database never reached (a stray announcement): the database decides.
    this.o.log.warn(`index version ${this.o.holder.version} is ahead of the database (${version}); reloading from the database`);
    await this.o.holder.refresh(this.o.fromDatabase, { replace: true }).catch(() => undefined);
  }

  /** How long a version read may take before the database counts as unreachable. */
  private get answerMs(): number {
    return Math.max(this.pollMs, MIN_POLL_ANSWER_MS);
  }
}
