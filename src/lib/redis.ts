// ioredis with the platform's defaults: bounded reconnect backoff, no offline queue for commands
// (a down Redis fails fast instead of piling up), and errors routed to the logger.
import { Redis } from 'ioredis';
import type { Logger } from './log.ts';

export function createRedis(url: string, log: Logger, name: string): Redis {
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

export const INDEX_CHANNEL = 'platform:index:version';
export const snapshotKey = (version: number) => `platform:index:snapshot:${version}`;
/**
 * Cached snapshots expire soon: every change stores a whole snapshot (component code included),
 * runtimes read one within a poll interval of its announcement, and the database can always
 * rebuild one. A day's worth of snapshots of a large index would be gigabytes.
 */
export const SNAPSHOT_TTL_SECONDS = 600;
