// Keeps a runtime's index current: an in-process subscription (embedded), a Redis subscription
// (scale-out), and always a version poll against the database as the backstop. A full reload
// follows every Redis reconnect, since pub/sub drops messages while disconnected.
import type { Redis } from 'ioredis';
import type { Logger } from '../../src/lib/log.ts';
import { INDEX_CHANNEL, snapshotKey } from '../../src/lib/redis.ts';
import type { IndexSnapshot } from '../../src/endpoints/index-snapshot.ts';
import type { IndexHolder } from './holder.ts';

export interface IndexSyncOptions {
  holder: IndexHolder;
  /** Builds a snapshot from the database (the source of truth). */
  fromDatabase: () => Promise<IndexSnapshot>;
  /** The version the database is at (a one-row read). */
  databaseVersion: () => Promise<number>;
  /** Subscribes to in-process publication (embedded mode). */
  local?: (listener: (version: number) => Promise<void>) => () => void;
  redis?: { client: Redis; subscriber: Redis };
  pollMs?: number;
  log: Logger;
}

export interface IndexSyncHealth {
  mode: 'embedded' | 'redis' | 'database-poll';
  redisConnected: boolean | null;
  databaseReachable: boolean;
  lastPollAt: string | null;
}

export class IndexSync {
  private timer: ReturnType<typeof setInterval> | null = null;
  private unsubscribe: (() => void) | null = null;
  private databaseReachable = true;
  private lastPollAt: string | null = null;

  constructor(private readonly o: IndexSyncOptions) {}

  /** Loads the first index (fails the start when the database cannot give one) and starts listening. */
  async start(): Promise<void> {
    await this.o.holder.refresh(this.o.fromDatabase, true);
    if (this.o.local) this.unsubscribe = this.o.local((version) => this.toVersion(version));
    if (this.o.redis) this.listenRedis(this.o.redis.subscriber);
    this.timer = setInterval(() => void this.poll(), this.o.pollMs ?? 2000);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
  }

  health(): IndexSyncHealth {
    return {
      mode: this.o.redis ? 'redis' : this.o.local ? 'embedded' : 'database-poll',
      redisConnected: this.o.redis ? this.o.redis.subscriber.status === 'ready' : null,
      databaseReachable: this.databaseReachable,
      lastPollAt: this.lastPollAt,
    };
  }

  private listenRedis(subscriber: Redis): void {
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== INDEX_CHANNEL) return;
      const version = Number(message);
      if (Number.isInteger(version)) void this.toVersion(version).catch(() => undefined);
    });
    // ioredis re-subscribes on reconnect; messages sent meanwhile are lost, so reload in full.
    let first = true;
    subscriber.on('ready', () => {
      if (first) {
        first = false;
        return;
      }
      this.o.log.info('index subscriber reconnected; reloading the index');
      void this.o.holder.refresh(this.o.fromDatabase, true).catch(() => undefined);
    });
    void subscriber.subscribe(INDEX_CHANNEL).catch((error: unknown) => this.o.log.warn('index subscribe failed', { error: String(error) }));
  }

  /** Moves to `version` if newer: from the Redis cache when it has it, else from the database. */
  private async toVersion(version: number): Promise<void> {
    if (version <= this.o.holder.version) return;
    await this.o.holder.refresh(async () => (await this.fromRedis(version)) ?? this.o.fromDatabase());
  }

  private async fromRedis(version: number): Promise<IndexSnapshot | null> {
    const client = this.o.redis?.client;
    if (!client || client.status !== 'ready') return null;
    try {
      const text = await client.get(snapshotKey(version));
      return text ? (JSON.parse(text) as IndexSnapshot) : null;
    } catch {
      return null;
    }
  }

  private async poll(): Promise<void> {
    try {
      const version = await this.o.databaseVersion();
      this.databaseReachable = true;
      this.lastPollAt = new Date().toISOString();
      await this.toVersion(version);
    } catch {
      this.databaseReachable = false; // keep serving the last good index
    }
  }
}
