// Audit rows and statistics of invocations: packed into byte batches on the request path (batch.ts),
// written elsewhere; a failed write keeps what was not stored for the next attempt, and close()
// flushes everything before the process stops.
import type { Database } from '../../src/db/index.ts';
import type { Logger } from '../../src/lib/log.ts';
import { BatchBuilder, restOf, type RecordBatch } from './batch.ts';
import { claimSpilled, spillBatches } from './spill.ts';
import type { InvocationRecord, InvocationWriter } from './types.ts';
import { InlineWriter, ThreadWriter } from './writers.ts';

export type { InvocationRecord } from './types.ts';

/**
 * Beyond this many unwritten records (a long database outage) the oldest batches leave memory:
 * to a spill file when the recorder has a directory for them, else they are dropped and counted.
 */
const MAX_BUFFERED = 200_000;
/** Records per batch sent to the writer. */
const BATCH = 2048;

export class InvocationRecorder {
  private builder = new BatchBuilder();
  /** Sealed batches not yet handed to the writer, oldest first. */
  private sealed: RecordBatch[] = [];
  /** Records in `sealed` and `builder`. */
  private buffered = 0;
  private dropped = 0;
  private flushing: Promise<void> | null = null;
  private readonly timer: ReturnType<typeof setInterval>;

  private readonly spillDir: string | undefined;
  private readonly maxBuffered: number;

  constructor(
    private readonly writer: InvocationWriter,
    private readonly log: Logger,
    flushMs = 250,
    options: { spillDir?: string; maxBuffered?: number } = {},
  ) {
    this.spillDir = options.spillDir;
    this.maxBuffered = options.maxBuffered ?? MAX_BUFFERED;
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref?.();
  }

  /** Called on the request path: packs the record into memory, nothing else. */
  record(r: InvocationRecord): void {
    this.builder.append(r);
    this.buffered++;
    if (this.builder.count >= BATCH) this.sealed.push(this.builder.seal());
    if (this.buffered > this.maxBuffered && this.sealed.length > 0) {
      const oldest = this.sealed.shift()!;
      this.buffered -= oldest.count;
      if (!this.spill([oldest], 'the database has been unavailable for long')) this.dropped += oldest.count;
    }
  }

  /** Records left unwritten by an earlier process (spill files), to be written with the next flush. */
  adopt(batches: RecordBatch[]): void {
    for (const b of batches) {
      this.sealed.push(b);
      this.buffered += b.count;
    }
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
    if (this.buffered > 0) await this.flush(); // what arrived during the last write
    if (this.buffered > 0) {
      // The database did not take them: keep them for the next start rather than lose them.
      if (this.builder.count > 0) this.sealed.push(this.builder.seal());
      const left = this.sealed;
      const count = this.buffered;
      this.sealed = [];
      this.buffered = 0;
      if (!this.spill(left, 'the database was unavailable at shutdown')) {
        this.log.error(`lost ${count} invocation records: the database was unavailable at shutdown and no spill directory could take them`);
      }
    }
    await this.writer.close();
  }

  /** Writes batches to a spill file; false when there is no spill directory or the write failed. */
  private spill(batches: RecordBatch[], why: string): boolean {
    if (this.spillDir === undefined) return false;
    try {
      const file = spillBatches(this.spillDir, batches);
      const count = batches.reduce((n, b) => n + b.count, 0);
      this.log.warn(`${count} invocation records kept in ${file} (${why}); the next runtime started on this directory writes them`);
      return true;
    } catch (error) {
      this.log.error('writing a spill file for unwritten invocation records failed', { error: String(error) });
      return false;
    }
  }

  private async drain(): Promise<void> {
    // Take everything buffered now; what arrives meanwhile waits for the next drain.
    if (this.builder.count > 0) this.sealed.push(this.builder.seal());
    const pending = this.sealed;
    this.sealed = [];
    this.buffered = 0;
    for (let i = 0; i < pending.length; i++) {
      const batch = pending[i]!;
      let written = 0;
      try {
        written = await this.writer.write(batch);
      } catch (error) {
        this.log.warn('invocation audit/statistics write failed; will retry', { error: String(error) });
      }
      if (written === batch.count) {
        this.builder.recycle(batch.bytes);
        continue;
      }
      // Unwritten records go back in front, in order, for the next tick.
      const left = [written > 0 ? restOf(batch, written) : batch, ...pending.slice(i + 1)];
      this.sealed = left.concat(this.sealed);
      for (const b of left) this.buffered += b.count;
      return;
    }
    if (this.dropped > 0) {
      this.log.warn(`dropped ${this.dropped} invocation records during a database outage`);
      this.dropped = 0;
    }
  }
}

/**
 * A recorder writing on its own thread when the database can be opened twice, else inline. With a
 * spill directory it takes over the records earlier processes spilled there, and spills what it
 * cannot write at shutdown.
 */
export async function createRecorder(db: Database, log: Logger, spillDir?: string): Promise<InvocationRecorder> {
  let writer: InvocationWriter = new InlineWriter(db);
  if (db.location) {
    try {
      writer = await ThreadWriter.open(db.location);
    } catch (error) {
      log.warn('invocation writer thread unavailable; writing on the serving thread', { error: String(error) });
    }
  }
  const recorder = new InvocationRecorder(writer, log, 250, spillDir === undefined ? {} : { spillDir });
  if (spillDir !== undefined) {
    const claimed = claimSpilled(spillDir);
    for (const file of claimed.unreadable) log.error(`a spill file of invocation records could not be read; left as ${file}`);
    if (claimed.files > 0) {
      recorder.adopt(claimed.batches);
      log.info(`writing ${claimed.batches.reduce((n, b) => n + b.count, 0)} invocation records an earlier process could not (${claimed.files} spill files)`);
    }
  }
  return recorder;
}
