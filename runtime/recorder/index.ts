// Audit rows and statistics of invocations: packed into byte batches on the request path (batch.ts),
// written elsewhere; a failed write keeps what was not stored for the next attempt, and close()
// flushes everything before the process stops.
import type { Database } from '../../src/core/db/index.ts';
import type { Logger } from '../../src/core/index.ts';
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
/**
 * How long close() waits for the database to take what is buffered. A database that hangs (rather
 * than refuses) would otherwise hold shutdown forever, and a supervisor's SIGKILL would then lose
 * every record: past this, what is left goes to a spill file for the next start. Short enough
 * that the whole shutdown fits a supervisor's usual grace (10 s for `docker stop`) once in-flight
 * invocations are done; a healthy database takes the largest backlog (MAX_BUFFERED) well within it.
 */
const CLOSE_WRITE_LIMIT_MS = 5000;
/** How often invocation rows past their retention are deleted, and how many per statement. */
const PRUNE_EVERY_MS = 60_000;
const PRUNE_CHUNK = 5_000;
/** Statements per round: a backlog (retention just switched on) is worked off over several minutes. */
const PRUNE_CHUNKS_PER_ROUND = 40;

export class InvocationRecorder {
  private builder = new BatchBuilder();
  /** Sealed batches not yet handed to the writer, oldest first. */
  private sealed: RecordBatch[] = [];
  /** Records in `sealed` and `builder`. */
  private buffered = 0;
  private dropped = 0;
  private flushing: Promise<void> | null = null;
  /** Batches a drain has taken and not yet written, and a copy of the one being written now. */
  private draining: RecordBatch[] = [];
  private writing: RecordBatch | null = null;
  /** Set once close() gave up on the database: a drain still waiting stops after its write. */
  private abandoned = false;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly pruneTimer: ReturnType<typeof setInterval> | undefined;
  private pruning: Promise<number> | null = null;
  private closed = false;

  private readonly spillDir: string | undefined;
  private readonly maxBuffered: number;
  private readonly closeWriteLimitMs: number;
  private readonly retentionMs: number | undefined;

  constructor(
    private readonly writer: InvocationWriter,
    private readonly log: Logger,
    flushMs = 250,
    options: { spillDir?: string; maxBuffered?: number; closeWriteLimitMs?: number; retentionMs?: number; pruneEveryMs?: number } = {},
  ) {
    this.closeWriteLimitMs = options.closeWriteLimitMs ?? CLOSE_WRITE_LIMIT_MS;
    this.spillDir = options.spillDir;
    this.maxBuffered = options.maxBuffered ?? MAX_BUFFERED;
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref?.();
    this.retentionMs = options.retentionMs;
    if (this.retentionMs !== undefined) {
      this.pruneTimer = setInterval(() => void this.prune(), options.pruneEveryMs ?? PRUNE_EVERY_MS);
      this.pruneTimer.unref?.();
    }
  }

  /**
   * Deletes invocation audit rows older than the retention (none without one), on the writer's
   * connection, a chunk per statement so inserts are never held up for long; resolves with how
   * many. Concurrent calls share one round.
   */
  prune(now = Date.now()): Promise<number> {
    if (this.retentionMs === undefined || this.closed) return Promise.resolve(0);
    const before = now - this.retentionMs;
    this.pruning ??= (async () => {
      let deleted = 0;
      try {
        for (let i = 0; i < PRUNE_CHUNKS_PER_ROUND && !this.closed; i++) {
          const n = await this.writer.prune(before, PRUNE_CHUNK);
          deleted += n;
          if (n < PRUNE_CHUNK) break;
        }
      } catch (error) {
        this.log.warn('deleting invocation audit rows past their retention failed; will retry', { error: String(error) });
      }
      if (deleted > 0) this.log.info(`deleted ${deleted} invocation audit rows older than ${new Date(before).toISOString()} (AUDIT_RETENTION_DAYS)`);
      return deleted;
    })().finally(() => {
      this.pruning = null;
    });
    return this.pruning;
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
    clearInterval(this.pruneTimer);
    this.closed = true;
    await this.pruning; // the writer is closed below: a prune must not be left on it
    let timer: Timer | undefined;
    const limit = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.closeWriteLimitMs)));
    const written = async () => {
      await this.flush();
      if (this.buffered > 0) await this.flush(); // what arrived during the last write
      return 'done' as const;
    };
    const outcome = await Promise.race([written(), limit]);
    clearTimeout(timer);
    let left: RecordBatch[] = [];
    if (outcome === 'late') {
      // The database hangs: whatever a drain still holds is spilled with the rest. (A write that
      // commits after all would be written twice; the next start's records are counted again.)
      this.abandoned = true;
      left = [...(this.writing ? [this.writing] : []), ...this.draining];
      this.writing = null;
      this.draining = [];
      this.log.warn(`the database took no invocation records for ${this.closeWriteLimitMs} ms at shutdown`);
    }
    if (this.builder.count > 0) this.sealed.push(this.builder.seal());
    left = left.concat(this.sealed);
    this.sealed = [];
    this.buffered = 0;
    const count = left.reduce((n, b) => n + b.count, 0);
    // The database did not take them: keep them for the next start rather than lose them.
    if (count > 0 && !this.spill(left, 'the database was unavailable at shutdown')) {
      this.log.error(`lost ${count} invocation records: the database was unavailable at shutdown and no spill directory could take them`);
    }
    if (outcome === 'late') {
      await Promise.race([this.writer.close(), new Promise((resolve) => setTimeout(resolve, 1000))]);
      return;
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
    this.draining = this.sealed;
    this.sealed = [];
    this.buffered = 0;
    while (this.draining.length > 0 && !this.abandoned) {
      const batch = this.draining.shift()!;
      // A copy while it is written: a writer thread takes the bytes, and close() may have to spill them.
      this.writing = { bytes: batch.bytes.slice(), strings: batch.strings, count: batch.count };
      let written = 0;
      try {
        written = await this.writer.write(batch);
      } catch (error) {
        this.log.warn('invocation audit/statistics write failed; will retry', { error: String(error) });
      }
      const copy = this.writing;
      this.writing = null;
      if (this.abandoned || copy === null) return; // close() spilled it already
      if (written === batch.count) {
        this.builder.recycle(batch.bytes);
        continue;
      }
      // Unwritten records go back in front, in order, for the next tick.
      const left = [written > 0 ? restOf(copy, written) : copy, ...this.draining];
      this.draining = [];
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
export async function createRecorder(db: Database, log: Logger, spillDir?: string, retentionMs?: number): Promise<InvocationRecorder> {
  let writer: InvocationWriter = new InlineWriter(db);
  if (db.location) {
    try {
      writer = await ThreadWriter.open(db.location);
    } catch (error) {
      log.warn('invocation writer thread unavailable; writing on the serving thread', { error: String(error) });
    }
  }
  const recorder = new InvocationRecorder(writer, log, 250, {
    ...(spillDir === undefined ? {} : { spillDir }),
    ...(retentionMs === undefined ? {} : { retentionMs }),
  });
  // A first round soon after the start, then every PRUNE_EVERY_MS.
  if (retentionMs !== undefined) setTimeout(() => void recorder.prune(), 5_000).unref?.();
  if (spillDir !== undefined) {
    const claimed = claimSpilled(spillDir);
    for (const file of claimed.unreadable) log.error(`a spill file of invocation records could not be read; left as ${file}`);
    for (const file of claimed.discardedDrafts) log.error(`an unfinished spill file of invocation records (a process died writing it) was removed: ${file}; its records are lost`);
    if (claimed.files > 0) {
      recorder.adopt(claimed.batches);
      log.info(`writing ${claimed.batches.reduce((n, b) => n + b.count, 0)} invocation records an earlier process could not (${claimed.files} spill files)`);
    }
  }
  return recorder;
}
