// One invocation as the audit trail and the statistics record it.

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

/** Writes records; resolves with how many were stored (a prefix of them, in order). */
export interface InvocationWriter {
  write(records: InvocationRecord[]): Promise<number>;
  close(): Promise<void>;
}

/** A record as a compact tuple: batches cross to the writer thread as one JSON string of these. */
export type RecordTuple = [number, string, string, string, string | null, number, number, string, string];

export const toTuple = (r: InvocationRecord): RecordTuple => [r.at, r.endpointId, r.workspaceId, r.initiatorId, r.executionAccountId, r.status, r.durationMs, r.oid, r.executionId];

export const fromTuple = (t: RecordTuple): InvocationRecord => ({
  at: t[0], endpointId: t[1], workspaceId: t[2], initiatorId: t[3], executionAccountId: t[4], status: t[5], durationMs: t[6], oid: t[7], executionId: t[8],
});
