// Per-Endpoint statistics (DESIGN §11): counters by status class and a latency histogram, added
// in batches by the runtime with atomic increments, read by the control plane.
import { eq, sql } from 'drizzle-orm';
import type { Database, Orm } from '../db/index.ts';

/** Upper bounds (ms) of the latency buckets; the last bucket is open-ended. */
export const LATENCY_BOUNDS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000] as const;

export const bucketOf = (ms: number): number => {
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) if (ms <= LATENCY_BOUNDS_MS[i]!) return i;
  return LATENCY_BOUNDS_MS.length;
};

/** What one flush adds for one Endpoint. */
export interface StatisticsDelta {
  endpointId: string;
  invocations: number;
  byClass: [number, number, number, number]; // 2xx, 3xx, 4xx, 5xx
  buckets: Map<number, number>;
  lastInvokedAt: Date;
}

/** Adds deltas inside the caller's transaction (atomic increments: concurrent runtimes never lose counts). */
export async function addStatistics(db: Database, q: Orm, deltas: StatisticsDelta[]): Promise<void> {
  const { endpointStats: s, endpointLatency: l } = db.t;
  for (const d of deltas) {
    await q
      .insert(s)
      .values({ endpointId: d.endpointId, invocations: d.invocations, status2xx: d.byClass[0], status3xx: d.byClass[1], status4xx: d.byClass[2], status5xx: d.byClass[3], lastInvokedAt: d.lastInvokedAt })
      .onConflictDoUpdate({
        target: s.endpointId,
        set: {
          invocations: sql`${s.invocations} + excluded.invocations`,
          status2xx: sql`${s.status2xx} + excluded.status_2xx`,
          status3xx: sql`${s.status3xx} + excluded.status_3xx`,
          status4xx: sql`${s.status4xx} + excluded.status_4xx`,
          status5xx: sql`${s.status5xx} + excluded.status_5xx`,
          lastInvokedAt: sql`CASE WHEN ${s.lastInvokedAt} IS NULL OR excluded.last_invoked_at > ${s.lastInvokedAt} THEN excluded.last_invoked_at ELSE ${s.lastInvokedAt} END`,
        },
      });
    for (const [bucket, count] of d.buckets) {
      await q
        .insert(l)
        .values({ endpointId: d.endpointId, bucket, count })
        .onConflictDoUpdate({ target: [l.endpointId, l.bucket], set: { count: sql`${l.count} + excluded.count` } });
    }
  }
}


export interface EndpointStatistics {
  endpointId: string;
  invocations: number;
  byStatusClass: { '2xx': number; '3xx': number; '4xx': number; '5xx': number };
  latencyMs: { p50: number; p95: number; p99: number };
  lastInvokedAt: string | null;
}

export async function readStatistics(db: Database, endpointId: string): Promise<EndpointStatistics> {
  const { endpointStats: s, endpointLatency: l } = db.t;
  const [row, buckets] = await db.read((q) =>
    Promise.all([q.select().from(s).where(eq(s.endpointId, endpointId)), q.select().from(l).where(eq(l.endpointId, endpointId))]),
  );
  const stats = row[0];
  const counts = new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0);
  for (const b of buckets) counts[b.bucket] = b.count;
  return {
    endpointId,
    invocations: stats?.invocations ?? 0,
    byStatusClass: { '2xx': stats?.status2xx ?? 0, '3xx': stats?.status3xx ?? 0, '4xx': stats?.status4xx ?? 0, '5xx': stats?.status5xx ?? 0 },
    latencyMs: { p50: percentile(counts, 0.5), p95: percentile(counts, 0.95), p99: percentile(counts, 0.99) },
    lastInvokedAt: stats?.lastInvokedAt?.toISOString() ?? null,
  };
}

/**
 * The p-quantile from the histogram: inside the bucket that holds it, interpolated on a log scale
 * by the quantile's rank among that bucket's samples (the buckets are a 1-2-5 series, so a plain
 * upper bound could be 2.5× the latencies it stands for); the open last bucket reports its lower
 * bound; 0 without data. Exported for tests.
 */
export function percentile(counts: readonly number[], p: number): number {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(total * p));
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    const count = counts[i]!;
    if (seen + count < rank) {
      seen += count;
      continue;
    }
    const upper = LATENCY_BOUNDS_MS[i];
    if (upper === undefined) return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]!;
    const fraction = (rank - seen) / count;
    const lower = i === 0 ? 0 : LATENCY_BOUNDS_MS[i - 1]!;
    const value = lower === 0 ? upper * fraction : lower * (upper / lower) ** fraction;
    return Math.round(value * 10) / 10;
  }
  return 0;
}
