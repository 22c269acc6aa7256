// Index publication (DESIGN §9): in-process listeners (embedded mode: the runtime reloads before
// the control-plane call returns), and Redis (the snapshot cached under its version, the version
// announced on a channel).
import type { Redis } from 'ioredis';
import type { Logger } from '../log.ts';
import { SNAPSHOT_TTL_SECONDS, type IndexKeys } from '../redis.ts';
import type { IndexPublisher } from './index-version.ts';
import type { IndexSnapshot } from './index-snapshot.ts';

type Listener = (version: number) => Promise<void>;

export class LocalIndexPublisher implements IndexPublisher {
  private readonly listeners = new Set<Listener>();

  constructor(private readonly log: Logger) {}

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async published(version: number): Promise<void> {
    await Promise.all(
      [...this.listeners].map((listener) =>
        listener(version).catch((error: unknown) => this.log.warn(`index listener failed for version ${version}`, { error: String(error) })),
      ),
    );
  }
}

/**
 * How long a change waits for its Redis announcement: a healthy Redis takes milliseconds (runtimes
 * then serve the change about as the call returns); one that hangs must not hold the call, which
 * is answered while the announcement goes on (and fails, within the command timeout) behind it.
 */
const PUBLISH_WAIT_MS = 500;

/** Caches the snapshot in Redis under its version and announces it; failures never fail the change (pollers catch up). */
export class RedisIndexPublisher implements IndexPublisher {
  constructor(
    private readonly redis: Redis,
    private readonly keys: IndexKeys,
    private readonly snapshot: () => Promise<IndexSnapshot>,
    private readonly log: Logger,
  ) {}

  async published(_version: number): Promise<void> {
    const announced = this.announce();
    let timer: Timer | undefined;
    await Promise.race([announced, new Promise<void>((resolve) => (timer = setTimeout(resolve, PUBLISH_WAIT_MS)))]);
    clearTimeout(timer);
  }

  private async announce(): Promise<void> {
    try {
      const snapshot = await this.snapshot();
      await this.redis.set(this.keys.snapshot(snapshot.version), JSON.stringify(snapshot), 'EX', SNAPSHOT_TTL_SECONDS);
      await this.redis.publish(this.keys.channel, String(snapshot.version));
    } catch (error) {
      this.log.warn('could not publish the index to Redis; runtimes will pick it up by polling', { error: String(error) });
    }
  }
}

export class CompositePublisher implements IndexPublisher {
  constructor(private readonly publishers: IndexPublisher[]) {}

  async published(version: number): Promise<void> {
    await Promise.all(this.publishers.map((p) => p.published(version)));
  }
}
