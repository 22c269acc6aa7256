// Where invocation records are written: on a writer thread with its own connection (file SQLite,
// Postgres), or inline for an in-memory database, which no other connection can reach.
import type { Database, DatabaseLocation } from '../../src/db/index.ts';
import { decodeBatch, type RecordBatch } from './batch.ts';
import type { InvocationWriter } from './types.ts';
import { writeInvocations } from './write.ts';

interface Reply {
  id: number;
  written: number;
  error?: string;
}

export class ThreadWriter implements InvocationWriter {
  private readonly worker = new Worker(new URL('./writer-worker.ts', import.meta.url).href);
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
    // Bytes and a short string table: a cheap structured clone, decoded on the writer's thread.
    const reply = await this.send({ batch });
    if (reply.error && reply.written === 0) throw new Error(reply.error);
    return reply.written;
  }

  async close(): Promise<void> {
    await this.send({ close: true });
    this.worker.terminate();
  }

  private send(message: Record<string, unknown>): Promise<Reply> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ id, ...message });
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

  async close(): Promise<void> {}
}
