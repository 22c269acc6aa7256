// The SQLite fast path of the invocation writer thread: prepared statements on its own connection
// (building a multi-row insert through the query builder costs ~3× the insert itself). Same rows
// and the same statistics as write.ts; one short transaction per chunk.
import { Database as SqliteClient } from 'bun:sqlite';
import { LATENCY_BOUNDS_MS } from '../../src/endpoints/statistics.ts';
import type { InvocationRecord } from './types.ts';
import { statisticsOf, type WriteResult } from './write.ts';

const CHUNK = 512;

export class SqliteInvocationStore {
  private readonly client: SqliteClient;
  private readonly insertAudit;
  private readonly upsertStats;
  private readonly upsertLatency;

  constructor(file: string) {
    this.client = new SqliteClient(file, { strict: true });
    this.client.exec('PRAGMA busy_timeout = 5000');
    this.client.exec('PRAGMA synchronous = NORMAL');
    this.insertAudit = this.client.prepare(
      `INSERT INTO audit (id, at, kind, action, actor_id, execution_account_id, resource_type, resource_id, workspace_id,
         before_version, after_version, status, duration_ms, oid, execution_id, details)
       VALUES ($id, $at, 'invocation', 'endpoint.invoke', $actor, $account, 'endpoint', $endpoint, $workspace,
         NULL, NULL, $status, $duration, $oid, $execution, NULL)`,
    );
    this.upsertStats = this.client.prepare(
      `INSERT INTO endpoint_stats (endpoint_id, invocations, status_2xx, status_3xx, status_4xx, status_5xx, last_invoked_at)
       VALUES ($endpoint, $n, $c2, $c3, $c4, $c5, $at)
       ON CONFLICT (endpoint_id) DO UPDATE SET
         invocations = invocations + excluded.invocations,
         status_2xx = status_2xx + excluded.status_2xx, status_3xx = status_3xx + excluded.status_3xx,
         status_4xx = status_4xx + excluded.status_4xx, status_5xx = status_5xx + excluded.status_5xx,
         last_invoked_at = CASE WHEN last_invoked_at IS NULL OR excluded.last_invoked_at > last_invoked_at
                                THEN excluded.last_invoked_at ELSE last_invoked_at END`,
    );
    this.upsertLatency = this.client.prepare(
      `INSERT INTO endpoint_latency (endpoint_id, bucket, count) VALUES ($endpoint, $bucket, $count)
       ON CONFLICT (endpoint_id, bucket) DO UPDATE SET count = count + excluded.count`,
    );
  }

  /** Stores records chunk by chunk; a failure stops there and reports what is stored so far. */
  write(records: InvocationRecord[]): WriteResult {
    let written = 0;
    try {
      for (let i = 0; i < records.length; i += CHUNK) {
        const chunk = records.slice(i, i + CHUNK);
        this.client.transaction(() => {
          for (const r of chunk) {
            this.insertAudit.run({
              id: Bun.randomUUIDv7('hex', r.at), at: r.at.getTime(), actor: r.initiatorId, account: r.executionAccountId,
              endpoint: r.endpointId, workspace: r.workspaceId, status: r.status, duration: Math.round(r.durationMs), oid: r.oid, execution: r.executionId,
            });
          }
          for (const d of statisticsOf(chunk)) {
            this.upsertStats.run({ endpoint: d.endpointId, n: d.invocations, c2: d.byClass[0], c3: d.byClass[1], c4: d.byClass[2], c5: d.byClass[3], at: d.lastInvokedAt.getTime() });
            for (const [bucket, count] of d.buckets) {
              if (bucket <= LATENCY_BOUNDS_MS.length) this.upsertLatency.run({ endpoint: d.endpointId, bucket, count });
            }
          }
        })();
        written += chunk.length;
      }
    } catch (error) {
      return { written, error: error instanceof Error ? error.message : String(error) };
    }
    return { written };
  }

  close(): void {
    this.client.close();
  }
}
