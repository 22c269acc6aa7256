// ioredis with the platform's defaults: bounded reconnect backoff, no offline queue for commands
// (a down Redis fails fast instead of piling up), and errors routed to the logger. ioredis is
// loaded only when REDIS_URL asks for it: on the embedded default its ~60 modules would only be
// heap for every full collection to walk.
import type { Redis } from 'ioredis';
import type { Logger } from './log.ts';

export async function createRedis(url: string, log: Logger, name: string): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url, {
    connectionName: name,
    lazyConnect: false,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 3000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let down = false;
  client.on('error', (error: Error) => {
    if (!down) log.warn(`redis ${name}: ${error.message}`);
    down = true;
  });
  client.on('ready', () => {
    if (down) log.info(`redis ${name}: reconnected`);
    down = false;
  });
  return client;
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
