// Keeps a runtime's index current through the channels it is given (src/core/index-channels/):
// in-process (embedded) or Redis (scale-out), and always the database version poll as the
// backstop. It is what the channels drive: it moves the holder to a version, from a channel that
// keeps the snapshot when one has it, else from the database (the source of truth).
import type { Logger } from '../../src/core/index.ts';
import type { IndexSnapshot } from '../../src/core/definitions/index.ts';
import type { DatabasePoll, IndexSubscriber, IndexTarget, RedisIndexSubscriber } from '../../src/core/index-channels/index.ts';
import type { IndexHolder } from './holder.ts';

export interface IndexSyncOptions {
  holder: IndexHolder;
  /** Builds a snapshot from the database. */
  fromDatabase: () => Promise<IndexSnapshot>;
  /** The in-process channel's subscriber (embedded mode). */
  inProcess?: IndexSubscriber;
  redis?: RedisIndexSubscriber;
  poll: DatabasePoll;
  log: Logger;
}

export interface IndexSyncHealth {
  mode: 'embedded' | 'redis' | 'database-poll';
  /**
   * Announcements can arrive: the subscriber is connected and its SUBSCRIBE confirmed, and Redis
   * answered its last PING (a hung server keeps its connections open) (null without Redis).
   */
  redisConnected: boolean | null;
  /** Whether the last version poll reached the database. */
  databaseReachable: boolean;
  /** The version the database was at when last polled (null before the first poll). */
  databaseVersion: number | null;
  lastPollAt: string | null;
  pollMs: number;
}

export class IndexSync implements IndexTarget {
  private readonly subscribers: IndexSubscriber[];

  constructor(private readonly o: IndexSyncOptions) {
    this.subscribers = [o.inProcess, o.redis, o.poll].filter((s): s is IndexSubscriber => s !== undefined);
  }

  get version(): number {
    return this.o.holder.version;
  }

  /** Loads the first index (fails the start when the database cannot give one) and starts listening. */
  async start(): Promise<void> {
    await this.o.holder.refresh(this.o.fromDatabase);
    for (const subscriber of this.subscribers) subscriber.start(this);
  }

  async stop(): Promise<void> {
    for (const subscriber of this.subscribers) subscriber.stop();
  }

  async toVersion(version: number): Promise<void> {
    if (version <= this.o.holder.version) return;
    await this.o.holder.refresh(async () => (await this.o.redis?.snapshot(version)) ?? this.o.fromDatabase());
  }

  reload(): Promise<void> {
    return this.o.holder.refresh(this.o.fromDatabase);
  }

  replace(): Promise<void> {
    return this.o.holder.refresh(this.o.fromDatabase, { replace: true });
  }

  health(): IndexSyncHealth {
    return {
      mode: this.o.redis ? 'redis' : this.o.inProcess ? 'embedded' : 'database-poll',
      redisConnected: this.o.redis ? this.o.redis.connected : null,
      ...this.o.poll.health(),
    };
  }
}
