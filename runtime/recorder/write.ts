// Stores invocation records: each chunk's audit rows and the statistics derived from exactly those
// rows go in one short transaction, so a retried chunk can never count twice and the write lock
// (SQLite has one per database) is never held for long.
import { and, asc, eq, inArray, lt } from 'drizzle-orm';
import type { Database } from '../../src/core/db/index.ts';
import { platform } from '../../src/core/platform/index.ts';
import { addStatistics, bucketOf, type StatisticsDelta } from '../../src/core/statistics/index.ts';
import type { InvocationRecord } from './types.ts';

const CHUNK = 512;

/** Stores records chunk by chunk; a failure stops there and reports what is stored so far. */
export async function writeInvocations(db: Database, records: InvocationRecord[]): Promise<WriteResult> {
  let written = 0;
  try {
    for (let i = 0; i < records.length; i += CHUNK) {
      const chunk = records.slice(i, i + CHUNK);
      await db.write(async (q) => {
        await q.insert(db.t.audit).values(chunk.map((r) => ({
          // Time-ordered ids, as the SQLite writer makes them.
          id: platform.uuidv7(r.at),
          at: new Date(r.at),
          kind: 'invocation' as const,
          action: 'endpoint.invoke',
          actorId: r.initiatorId,
          executionAccountId: r.executionAccountId,
          resourceType: 'endpoint',
          resourceId: r.endpointId,
          workspaceId: r.workspaceId,
          beforeVersion: null,
          afterVersion: null,
          status: r.status,
          durationMs: Math.round(r.durationMs),
          oid: r.oid,
          executionId: r.executionId,
          details: null,
        })));
        await addStatistics(db, q, statisticsOf(chunk));
      });
      written += chunk.length;
    }
  } catch (error) {
    return { written, error: error instanceof Error ? error.message : String(error) };
  }
  return { written };
}

/** Deletes up to `max` invocation audit rows older than `before` (epoch ms), oldest first; returns how many. */
export async function pruneInvocations(db: Database, before: number, max: number): Promise<number> {
  const { audit } = db.t;
  const oldest = db.read((q) =>
    q.select({ seq: audit.seq }).from(audit).where(and(lt(audit.at, new Date(before)), eq(audit.kind, 'invocation'))).orderBy(asc(audit.at)).limit(max),
  );
  const seqs = (await oldest).map((r) => r.seq);
  if (seqs.length === 0) return 0;
  const deleted = await db.write((q) => q.delete(audit).where(inArray(audit.seq, seqs)).returning({ seq: audit.seq }));
  return deleted.length;
}

export interface WriteResult {
  written: number;
  error?: string;
}

export function statisticsOf(records: InvocationRecord[]): StatisticsDelta[] {
  const byEndpoint = new Map<string, StatisticsDelta>();
  for (const r of records) {
    let d = byEndpoint.get(r.endpointId);
    if (!d) {
      d = { endpointId: r.endpointId, invocations: 0, byClass: [0, 0, 0, 0], buckets: new Map(), lastInvokedAt: new Date(r.at) };
      byEndpoint.set(r.endpointId, d);
    }
    d.invocations++;
    const cls = Math.floor(r.status / 100) - 2;
    if (cls >= 0 && cls <= 3) d.byClass[cls as 0 | 1 | 2 | 3]++;
    const bucket = bucketOf(r.durationMs);
    d.buckets.set(bucket, (d.buckets.get(bucket) ?? 0) + 1);
    if (r.at > d.lastInvokedAt.getTime()) d.lastInvokedAt = new Date(r.at);
  }
  return [...byEndpoint.values()];
}
