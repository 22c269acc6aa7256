// One invocation as the audit trail and the statistics record it.
import type { RecordBatch } from './batch.ts';

export interface InvocationRecord {
  /** Epoch milliseconds. */
  at: number;
  endpointId: string;
  workspaceId: string;
  initiatorId: string;
  executionAccountId: string | null;
  status: number;
  durationMs: number;
  oid: string;
  executionId: string;
}

/** Writes a batch; resolves with how many of its records were stored (a prefix of them, in order). */
export interface InvocationWriter {
  write(batch: RecordBatch): Promise<number>;
  /** Deletes up to `max` invocation audit rows older than `before` (epoch ms), oldest first; resolves with how many. */
  prune(before: number, max: number): Promise<number>;
  close(): Promise<void>;
}
