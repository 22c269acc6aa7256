// Where invocation records are written: on a writer thread with its own connection (file SQLite,
// Postgres), or inline for an in-memory database, which no other connection can reach.
import type { Database, DatabaseLocation } from '../../src/core/db/index.ts';
import { platform } from '../../src/core/platform/index.ts';
import { decodeBatch, type RecordBatch } from './batch.ts';
import type { InvocationWriter } from './types.ts';
import { pruneInvocations, writeInvocations } from './write.ts';

interface Reply {
  id: number;
  /** Records stored, or (for a prune) rows deleted. */
  written: number;
  error?: string;
  /** A batch's bytes, handed back when not all of its records were stored. */
  bytes?: Uint8Array;
}

export class ThreadWriter implements InvocationWriter {
  private readonly worker = platform.startWorker(new URL('./writer-worker.ts', import.meta.url));
  private readonly pending = new Map<number, (reply: Reply) => void>();
  private next = 0;

  private constructor() {
    this.worker.onmessage = (event: MessageEvent<Reply>) => {
      this.pending.get(event.data.id)?.(event.data);
      this.pending.delete(event.data.id);
    };
  }

  static async open(location: DatabaseLocation): Promise<ThreadWriter> {
    const writer = new ThreadWriter();
    const reply = await writer.send({ location });
    if (reply.error) {
      writer.worker.terminate();
      throw new Error(`invocation writer: ${reply.error}`);
    }
    return writer;
  }

  async write(batch: RecordBatch): Promise<number> {
    // The bytes are transferred, not copied: a structured clone of a few hundred KB stalled the
    // serving thread for 1–2 ms under load. The writer hands them back unless all were stored.
    const reply = await this.send({ batch }, [batch.bytes.buffer as ArrayBuffer]);
    batch.bytes = reply.bytes ?? new Uint8Array(0);
    if (reply.error && reply.written === 0) throw new Error(reply.error);
    return reply.written;
  }

  async prune(before: number, max: number): Promise<number> {
    const reply = await this.send({ prune: { before, max } });
    if (reply.error) throw new Error(reply.error);
    return reply.written;
  }

  async close(): Promise<void> {
    await this.send({ close: true });
    this.worker.terminate();
  }

  private send(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<Reply> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ id, ...message }, transfer);
    });
  }
}

export class InlineWriter implements InvocationWriter {
  constructor(private readonly db: Database) {}

  async write(batch: RecordBatch): Promise<number> {
    const { written, error } = await writeInvocations(this.db, decodeBatch(batch));
    if (error && written === 0) throw new Error(error);
    return written;
  }

  prune(before: number, max: number): Promise<number> {
    return pruneInvocations(this.db, before, max);
  }

  async close(): Promise<void> {}
}
