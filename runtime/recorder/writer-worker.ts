// The invocation writer's thread: its own connection to the database, so the serving thread never
// blocks on inserts (SQLite is synchronous) nor spends its time building them. Messages:
// {id, batch} in (batch.ts), {id, written, error?} out; {id, prune: {before, max}} deletes old
// invocation rows, {id, written: deleted} out.
import type { DatabaseLocation } from '../../src/core/db/index.ts';
import { decodeBatch, type RecordBatch } from './batch.ts';
import { SqliteInvocationStore } from './sqlite-store.ts';
import type { WriteResult } from './write.ts';

declare const self: Worker;

interface Store {
  write(records: ReturnType<typeof decodeBatch>): WriteResult | Promise<WriteResult>;
  prune(before: number, max: number): number | Promise<number>;
  close(): void | Promise<void>;
}

let store: Store | null = null;

/** The serving process has migrated the database already: the writer only connects. */
async function openStore(location: DatabaseLocation): Promise<Store> {
  if (location.url.startsWith('sqlite:')) return new SqliteInvocationStore(location.url.slice('sqlite:'.length));
  const { PostgresInvocationStore } = await import('./pg-store.ts');
  return new PostgresInvocationStore(location);
}

self.onmessage = async (event: MessageEvent<{ id: number; location?: DatabaseLocation; batch?: RecordBatch; prune?: { before: number; max: number }; close?: true }>) => {
  const { id } = event.data;
  try {
    const location = event.data.location;
    if (location) {
      store = await openStore(location);
      self.postMessage({ id, written: 0 });
      return;
    }
    if (event.data.close) {
      await store?.close();
      store = null;
      self.postMessage({ id, written: 0 });
      return;
    }
    if (!store) throw new Error('writer not opened');
    const prune = event.data.prune;
    if (prune) {
      self.postMessage({ id, written: await store.prune(prune.before, prune.max) });
      return;
    }
    const records = event.data.batch ? decodeBatch(event.data.batch) : [];
    const result = await store.write(records);
    // The bytes go back either way: unwritten records are retried, a written batch's buffer is reused.
    giveBack(id, event.data.batch, result);
  } catch (error) {
    giveBack(id, event.data.batch, { written: 0, error: error instanceof Error ? error.message : String(error) });
  }
};

/** The batch's bytes go back (transferred) with the reply. */
function giveBack(id: number, batch: RecordBatch | undefined, result: { written: number; error?: string }): void {
  if (!batch) return void self.postMessage({ id, ...result });
  self.postMessage({ id, ...result, bytes: batch.bytes }, [batch.bytes.buffer as ArrayBuffer]);
}
