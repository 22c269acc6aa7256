// The invocation writer's thread: its own connection to the database, so the serving thread never
// blocks on inserts (bun:sqlite is synchronous). Messages: {id, batch} in (batch.ts), {id, written, error?} out.
import { openDatabase, type Database } from '../../src/db/index.ts';
import { decodeBatch, type RecordBatch } from './batch.ts';
import { writeInvocations } from './write.ts';
import { SqliteInvocationStore } from './sqlite-store.ts';

declare const self: Worker;

let db: Database | null = null;
let sqlite: SqliteInvocationStore | null = null;

self.onmessage = async (event: MessageEvent<{ id: number; location?: { url: string; schema?: string }; batch?: RecordBatch; close?: true }>) => {
  const { id } = event.data;
  try {
    const location = event.data.location;
    if (location) {
      // The serving process has migrated the database already.
      if (location.url.startsWith('sqlite:')) sqlite = new SqliteInvocationStore(location.url.slice('sqlite:'.length));
      else db = await openDatabase(location.url, location.schema ? { schema: location.schema, max: 2 } : { max: 2 });
      self.postMessage({ id, written: 0 });
      return;
    }
    if (event.data.close) {
      sqlite?.close();
      await db?.close();
      db = sqlite = null;
      self.postMessage({ id, written: 0 });
      return;
    }
    if (!sqlite && !db) throw new Error('writer not opened');
    const records = event.data.batch ? decodeBatch(event.data.batch) : [];
    const result = sqlite ? sqlite.write(records) : await writeInvocations(db!, records);
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
