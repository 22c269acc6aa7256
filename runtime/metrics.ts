// The runtime origin's gauges (DESIGN §12), read at scrape time: the index it serves (version, and
// seconds since it was loaded), the database and Redis answering.
import { redisAnswers } from '../src/core/index.ts';
import type { Database } from '../src/core/db/index.ts';
import type { OriginMetrics } from '../src/core/metrics/index.ts';
import type { IndexHolder } from './index/index.ts';

/** How long a scrape waits for Redis to answer a PING before it reports it down (as /readyz). */
const REDIS_PING_MS = 500;

export interface RuntimeGaugeSources {
  db: Database;
  index: IndexHolder;
  /** The runtime's Redis client (REDIS_URL); without one there is no redis_up. */
  redis?: Parameters<typeof redisAnswers>[0];
}

export function runtimeGauges(metrics: OriginMetrics, o: RuntimeGaugeSources): void {
  metrics.gauge('index_version', 'Version of the definition index this runtime serves (-1 before the first load)', [], () => [[{}, o.index.version]]);
  metrics.gauge('index_age_seconds', 'Seconds since the index this runtime serves was loaded', [], () => {
    const at = o.index.health().lastLoadedAt;
    return at === null ? [] : [[{}, (Date.now() - Date.parse(at)) / 1000]];
  });
  metrics.gauge('database_up', 'Whether the database answered a ping during this scrape (1) or not (0)', [], async () => [[{}, (await o.db.ping()) ? 1 : 0]]);
  const redis = o.redis;
  if (redis) metrics.gauge('redis_up', 'Whether Redis answered a PING during this scrape (1) or not (0)', [], async () => [[{}, (await redisAnswers(redis, REDIS_PING_MS)) ? 1 : 0]]);
}
