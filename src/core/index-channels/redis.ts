// The Redis channel (scale-out): a change caches the snapshot under its version and announces the
// version on a channel; a runtime takes the snapshot from the cache when it has it, and reloads
// from the database after every (re)subscription, since pub/sub drops messages while disconnected.
import type { Redis } from 'ioredis';
import { type Logger, REDIS_COMMAND_TIMEOUT_MS, SNAPSHOT_TTL_SECONDS, redisAnswers, type IndexKeys } from '../index.ts';
import { SNAPSHOT_FORMAT, type IndexSnapshot } from '../definitions/index.ts';
import type { IndexPublisher, IndexSubscriber, IndexTarget } from './types.ts';

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

export class RedisIndexSubscriber implements IndexSubscriber {
  private subscribed = false;
  /** Redis answered its last command: while it does not, snapshots come from the database at once. */
  private answering = true;
  private probe: ReturnType<typeof setInterval> | null = null;

  /** `probeMs`: how often a PING checks that Redis answers (a hung server keeps its connections open). */
  constructor(
    private readonly o: { client: Redis; subscriber: Redis; keys: IndexKeys; probeMs: number; log: Logger },
  ) {}

  start(target: IndexTarget): void {
    const { subscriber, keys } = this.o;
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== keys.channel) return;
      const version = Number(message);
      if (Number.isInteger(version)) void target.toVersion(version).catch(() => undefined);
    });
    subscriber.on('close', () => {
      this.subscribed = false;
    });
    // SUBSCRIBE on every connection ourselves: the client has no offline queue, so a SUBSCRIBE sent
    // before the first connection is refused, and ioredis only re-subscribes channels it already
    // had. Each (re)subscription is followed by a reload, since announcements are lost meanwhile.
    subscriber.on('ready', () => void this.subscribe(target, true));
    // Already connected: the index was just loaded, so no reload is needed.
    if (subscriber.status === 'ready') void this.subscribe(target, false);
    // A new connection has just been answered (ioredis is ready after its handshake).
    this.o.client.on('ready', () => (this.answering = true));
    this.probe = setInterval(() => {
      void redisAnswers(this.o.client, REDIS_COMMAND_TIMEOUT_MS).then((answers) => {
        this.answering = answers;
      });
    }, this.o.probeMs);
    this.probe.unref?.();
  }

  stop(): void {
    if (this.probe) clearInterval(this.probe);
  }

  /** Announcements can arrive: subscribed on a ready connection, and Redis answered its last PING. */
  get connected(): boolean {
    return this.o.subscriber.status === 'ready' && this.subscribed && this.answering;
  }

  async snapshot(version: number): Promise<IndexSnapshot | null> {
    const { client, keys } = this.o;
    if (client.status !== 'ready' || !this.answering) return null;
    let text: string | null;
    try {
      text = await client.get(keys.snapshot(version));
    } catch {
      // Refused, or no answer within the command timeout: until a PING is answered, skip Redis.
      this.answering = false;
      return null;
    }
    try {
      const snapshot = text ? (JSON.parse(text) as IndexSnapshot) : null;
      return snapshot?.version === version && snapshot.format === SNAPSHOT_FORMAT ? snapshot : null;
    } catch {
      return null;
    }
  }

  private async subscribe(target: IndexTarget, reload: boolean): Promise<void> {
    try {
      await this.o.subscriber.subscribe(this.o.keys.channel);
      this.subscribed = true;
    } catch (error) {
      this.o.log.warn('index subscribe failed; retrying on the next connection', { error: String(error) });
      return;
    }
    if (!reload) return;
    // Read the database only once subscribed, so no version falls between the reload and the channel.
    this.o.log.info('index subscriber connected; reloading the index');
    await target.reload().catch(() => undefined); // the poll retries
  }
}
