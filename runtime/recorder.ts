// Audit rows and statistics of invocations, buffered in memory and written in batches off the
// request path; a failed write keeps the batch for the next attempt, and close() flushes.
import type { Database, Orm } from '../src/db/index.ts';
import type { Logger } from '../src/lib/log.ts';
import { addStatistics, bucketOf, type StatisticsDelta } from '../src/endpoints/statistics.ts';

export interface InvocationRecord {
  at: Date;
  endpointId: string;
  workspaceId: string;
  initiatorId: string;
  executionAccountId: string | null;
  status: number;
  durationMs: number;
  oid: string;
  executionId: string;
}

/** Beyond this many unwritten audit rows (a long database outage), the oldest are dropped and counted. */
const MAX_BUFFERED = 200_000;

export class InvocationRecorder {
  private audit: InvocationRecord[] = [];
  private stats = new Map<string, StatisticsDelta>();
  private dropped = 0;
  private flushing: Promise<void> | null = null;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    flushMs = 1000,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref?.();
  }

  /** Called on the request path: memory only. */
  record(r: InvocationRecord): void {
    if (this.audit.length >= MAX_BUFFERED) {
      this.audit.shift();
      this.dropped++;
    }
    this.audit.push(r);
    let delta = this.stats.get(r.endpointId);
    if (!delta) {
      delta = { endpointId: r.endpointId, invocations: 0, byClass: [0, 0, 0, 0], buckets: new Map(), lastInvokedAt: r.at };
      this.stats.set(r.endpointId, delta);
    }
    delta.invocations++;
    const cls = Math.floor(r.status / 100) - 2;
    if (cls >= 0 && cls <= 3) delta.byClass[cls as 0 | 1 | 2 | 3]++;
    const bucket = bucketOf(r.durationMs);
    delta.buckets.set(bucket, (delta.buckets.get(bucket) ?? 0) + 1);
    if (r.at > delta.lastInvokedAt) delta.lastInvokedAt = r.at;
  }

  /** Writes what is buffered; concurrent calls share one write. */
  flush(): Promise<void> {
    if (!this.flushing) {
      this.flushing = this.write().finally(() => {
        this.flushing = null;
      });
    }
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    if (this.audit.length > 0 || this.stats.size > 0) await this.flush(); // what arrived during the last write
  }

  private async write(): Promise<void> {
    if (this.audit.length === 0 && this.stats.size === 0) return;
    const audit = this.audit;
    const stats = [...this.stats.values()];
    this.audit = [];
    this.stats = new Map();
    try {
      // One transaction: a retried batch can never count twice.
      await this.db.write(async (q) => {
        await this.insertAudit(q, audit);
        await addStatistics(this.db, q, stats);
      });
      if (this.dropped > 0) {
        this.log.warn(`dropped ${this.dropped} audit rows during a database outage`);
        this.dropped = 0;
      }
    } catch (error) {
      // Put the batch back in front; it is retried on the next tick.
      this.audit = audit.concat(this.audit);
      for (const d of stats) this.merge(d);
      this.log.warn('invocation audit/statistics write failed; will retry', { error: String(error) });
    }
  }

  private async insertAudit(q: Orm, rows: InvocationRecord[]): Promise<void> {
    const { audit } = this.db.t;
    for (let i = 0; i < rows.length; i += 500) {
      await q.insert(audit).values(rows.slice(i, i + 500).map((r) => ({
        id: crypto.randomUUID(),
        at: r.at,
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
    }
  }

  private merge(d: StatisticsDelta): void {
    const existing = this.stats.get(d.endpointId);
    if (!existing) {
      this.stats.set(d.endpointId, d);
      return;
    }
    existing.invocations += d.invocations;
    for (let i = 0; i < 4; i++) existing.byClass[i as 0 | 1 | 2 | 3] += d.byClass[i as 0 | 1 | 2 | 3];
    for (const [b, c] of d.buckets) existing.buckets.set(b, (existing.buckets.get(b) ?? 0) + c);
    if (d.lastInvokedAt > existing.lastInvokedAt) existing.lastInvokedAt = d.lastInvokedAt;
  }
}
