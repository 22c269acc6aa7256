// ioredis with the platform's defaults: bounded reconnect backoff, no offline queue for commands
// (a down Redis fails fast instead of piling up), a time limit on every command (a Redis that hangs
// rather than refuses keeps its connection open, and would otherwise hold every caller forever),
// and errors routed to the logger. ioredis is
// loaded only when REDIS_URL asks for it: on the embedded default its ~60 modules would only be
// heap for every full collection to walk.
import type { Redis } from 'ioredis';
import { ConfigError } from './config.ts';
import type { Logger } from './log.ts';

/**
 * How long any Redis command may take before it fails. Every use is small (a version, a ping) or a
 * snapshot read or written on the same network, which takes milliseconds even for a large index.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 2000;

export async function createRedis(url: string, log: Logger, name: string): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    connectionName: name,
    lazyConnect: false,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 3000,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let down = false;
  client.on('error', (error: Error) => {
    // Checked at start (below) unless Redis was down then: ioredis goes on with database 0.
    if (/DB index is out of range|invalid DB index/i.test(error.message)) {
      log.error(`redis ${name}: REDIS_URL names a database this Redis server does not have (${error.message}); fix REDIS_URL`);
    } else if (!down) log.warn(`redis ${name}: ${error.message}`);
    down = true;
  });
  client.on('ready', () => {
    if (down) log.info(`redis ${name}: reconnected`);
    down = false;
  });
  const db = client.options.db ?? 0;
  if (db !== 0 && (await missingDatabase(client))) {
    client.disconnect();
    throw new ConfigError(`REDIS_URL: the Redis server has no database ${db} (ERR DB index is out of range): name one it has`);
  }
  return client;
}

/**
 * Whether the server refused to select the URL's database. ioredis only reports it as an error
 * event and goes on with database 0, where the platform would then work unnoticed. A Redis that
 * is down or does not answer at start is not a configuration error: the platform starts anyway.
 */
function missingDatabase(client: Redis): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (missing: boolean) => {
      clearTimeout(timer);
      client.off('error', onError);
      client.off('ready', onReady);
      resolve(missing);
    };
    const onError = (error: Error) => done(/DB index is out of range|invalid DB index/i.test(error.message));
    const onReady = () => done(false);
    const timer = setTimeout(() => done(false), 4000);
    client.on('error', onError);
    client.on('ready', onReady);
  });
}

/** Whether Redis answers a PING within `ms` (a connected but hung server does not). */
export async function redisAnswers(client: Redis, ms: number): Promise<boolean> {
  if (client.status !== 'ready') return false;
  let timer: Timer | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([client.ping().then(() => true, () => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Where one deployment announces index versions and caches snapshots in Redis. */
export interface IndexKeys {
  channel: string;
  snapshot(version: number): string;
}

/**
 * Keys of one deployment, named after its database's identity (the id of its `default`
 * workspace, made once per database): deployments sharing a Redis never see each other's index.
 */
export const indexKeys = (deploymentId: string): IndexKeys => ({
  channel: `platform:${deploymentId}:index:version`,
  snapshot: (version) => `platform:${deploymentId}:index:snapshot:${version}`,
});
/**
 * Cached snapshots expire soon: every change stores a whole snapshot (component code included),
 * runtimes read one within a poll interval of its announcement, and the database can always
 * rebuild one. A day's worth of snapshots of a large index would be gigabytes.
 */
export const SNAPSHOT_TTL_SECONDS = 600;
