// Audit rows and statistics of invocations: buffered in memory on the request path, written in
// batches elsewhere; a failed write keeps what was not stored for the next attempt, and close()
// flushes everything before the process stops.
import type { Database } from '../../src/db/index.ts';
import type { Logger } from '../../src/lib/log.ts';
import type { InvocationRecord, InvocationWriter } from './types.ts';
import { InlineWriter, ThreadWriter } from './writers.ts';

export type { InvocationRecord } from './types.ts';

/** Beyond this many unwritten records (a long database outage), the oldest are dropped and counted. */
const MAX_BUFFERED = 200_000;
/** Records per message to the writer. */
const BATCH = 2048;

export class InvocationRecorder {
  private buffer: InvocationRecord[] = [];
  private dropped = 0;
  private flushing: Promise<void> | null = null;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly writer: InvocationWriter,
    private readonly log: Logger,
    flushMs = 250,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref?.();
  }

  /** Called on the request path: memory only. */
  record(r: InvocationRecord): void {
    if (this.buffer.length >= MAX_BUFFERED) {
      this.buffer.shift();
      this.dropped++;
    }
    this.buffer.push(r);
  }

  /** Writes what is buffered; concurrent calls share one write. */
  flush(): Promise<void> {
    this.flushing ??= this.drain().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    if (this.buffer.length > 0) await this.flush(); // what arrived during the last write
    await this.writer.close();
  }

  private async drain(): Promise<void> {
    // Take everything buffered now; what arrives meanwhile waits for the next drain.
    const pending = this.buffer;
    this.buffer = [];
    let done = 0;
    while (done < pending.length) {
      const batch = pending.slice(done, done + BATCH);
      let written = 0;
      try {
        written = await this.writer.write(batch);
      } catch (error) {
        this.log.warn('invocation audit/statistics write failed; will retry', { error: String(error) });
      }
      done += written;
      if (written < batch.length) break;
    }
    if (done < pending.length) {
      // Unwritten records go back in front, in order, for the next tick.
      this.buffer = pending.slice(done).concat(this.buffer);
      return;
    }
    if (this.dropped > 0) {
      this.log.warn(`dropped ${this.dropped} invocation records during a database outage`);
      this.dropped = 0;
    }
  }
}

/** A recorder writing on its own thread when the database can be opened twice, else inline. */
export async function createRecorder(db: Database, log: Logger): Promise<InvocationRecorder> {
  let writer: InvocationWriter = new InlineWriter(db);
  if (db.location) {
    try {
      writer = await ThreadWriter.open(db.location);
    } catch (error) {
      log.warn('invocation writer thread unavailable; writing on the serving thread', { error: String(error) });
    }
  }
  return new InvocationRecorder(writer, log);
}
