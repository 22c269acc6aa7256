// The list engine's runner on a SQLite file: every list query runs on a reader thread with its own
// read-only connection (./reader-worker.ts), never on the serving thread. SQLite is
// synchronous: run inline, a group or a count over a million audit rows held both origins'
// event loop (the runtime's invocations included) for half a second or more. Readers see what
// has been committed, as any connection does: each write commits before its response.
//
// A query has a time limit, as on Postgres. SQLite cannot be interrupted from outside: past the
// limit the query is answered QUERY_TIMEOUT, the queries queued behind it go to another reader,
// and its thread is told to stop; the thread ends when the statement does, and until then it
// keeps its slot, so that runaway queries never hold more than READERS threads.
import { sqlite } from '../../query/dialect/index.ts';
import type { SqlRunner } from '../../query/model/index.ts';
import { platform, type SqliteValue } from '../../platform/index.ts';

/** Reader threads: two, so that one long query does not hold up every other list page. */
const READERS = 2;
/** A list query's time limit (the same as Postgres list connections' statement_timeout). */
const LIST_QUERY_TIMEOUT_MS = 30_000;
/** How long closing waits for the list queries under way before it stops their threads. */
const CLOSE_WAIT_MS = 2_000;
/** How long a reader then has to close its connection. */
const CLOSE_CONNECTION_WAIT_MS = 500;

type Rows = Record<string, unknown>[];

interface Reply {
  id: number;
  rows?: Rows;
  error?: { message: string; code?: string };
}

/** One list query, from the call until it is answered (on whichever reader it ends up). */
interface Job {
  sql: string;
  params: SqliteValue[];
  resolve(rows: Rows): void;
  reject(error: Error): void;
  timer: Timer;
  on?: Reader;
}

/** An error as the driver would have thrown it (its `code` decides 503 against 500). */
const coded = (message: string, code?: string): Error => Object.assign(new Error(message), code ? { code } : {});

interface ReaderEvents {
  /** The reader takes no more queries: these were queued on it and never started. */
  stopped(reader: Reader, unstarted: Job[]): void;
  /** Its thread has ended: the slot is free. */
  ended(reader: Reader): void;
}

class Reader {
  /** Queries posted to the thread, in order: the first is the one running. */
  readonly jobs = new Map<number, Job>();
  usable = true;
  private readonly worker = platform.startWorker(new URL('./reader-worker.ts', import.meta.url));
  private next = 1;

  constructor(file: string, private readonly events: ReaderEvents) {
    this.worker.unref();
    this.worker.onmessage = (event: MessageEvent<Reply>) => this.answered(event.data);
    this.worker.addEventListener('error', (event) => this.fail(coded(`list-query reader failed: ${(event as ErrorEvent).message || 'error'}`)));
    this.worker.addEventListener('close', () => {
      if (this.usable) this.fail(coded('list-query reader stopped'));
      events.ended(this);
    });
    // Handled in order: every query waits behind the open. id 0 is the open.
    this.worker.postMessage({ id: 0, file });
  }

  run(job: Job): void {
    const id = this.next++;
    job.on = this;
    this.jobs.set(id, job);
    this.worker.postMessage({ id, sql: job.sql, params: job.params });
  }

  /** The query running here ran out of time: answer it, hand on the rest, stop the thread. */
  timedOut(job: Job): void {
    for (const [id, queued] of this.jobs) {
      if (queued !== job) continue;
      this.jobs.delete(id);
      break;
    }
    this.stop();
  }

  /**
   * Closes the connection (the last one to close removes the WAL and shared-memory files), then
   * stops the thread; one that does not answer within `waitMs` (a statement still runs) is stopped
   * without.
   */
  async shutdown(waitMs: number): Promise<void> {
    if (this.usable) {
      const id = this.next++;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        this.jobs.set(id, { sql: '', params: [], resolve: () => resolve(), reject: () => resolve(), timer });
        this.worker.postMessage({ id, close: true });
      });
    }
    this.terminate();
  }

  /** Stops the thread now (its statement, if one runs, finishes first). */
  terminate(): void {
    this.usable = false;
    this.worker.terminate();
  }

  private answered({ id, rows, error }: Reply): void {
    if (id === 0) {
      // The file could not be opened: nothing queued here can run, and another reader would fail alike.
      if (error) this.fail(coded(`list-query reader: ${error.message}`, error.code));
      return;
    }
    const job = this.jobs.get(id);
    if (!job) return; // answered already (timed out)
    this.jobs.delete(id);
    clearTimeout(job.timer);
    if (error) job.reject(coded(error.message, error.code));
    else job.resolve(rows ?? []);
  }

  private stop(): void {
    if (!this.usable) return;
    const unstarted = [...this.jobs.values()];
    this.jobs.clear();
    this.terminate();
    this.events.stopped(this, unstarted);
  }

  /** The thread failed: what it held fails with it. */
  private fail(error: Error): void {
    if (!this.usable) return;
    for (const job of this.jobs.values()) {
      clearTimeout(job.timer);
      job.reject(error);
    }
    this.jobs.clear();
    this.terminate();
    this.events.stopped(this, []);
  }
}

export interface ReaderOptions {
  /** A list query's time limit (default LIST_QUERY_TIMEOUT_MS). */
  timeoutMs?: number;
  /** How long close() waits for queries under way (default CLOSE_WAIT_MS). */
  closeWaitMs?: number;
}

export class SqliteReaders implements SqlRunner {
  readonly dialect = 'sqlite' as const;
  private readonly slots: (Reader | null)[] = new Array<Reader | null>(READERS).fill(null);
  private readonly timeoutMs: number;
  private readonly closeWaitMs: number;
  /** Queries waiting for a reader while every slot holds a thread that is stopping. */
  private readonly waiting: Job[] = [];
  private closed = false;
  private readonly events: ReaderEvents = {
    stopped: (_reader, unstarted) => {
      for (const job of unstarted) this.dispatch(job);
    },
    ended: (reader) => {
      const at = this.slots.indexOf(reader);
      if (at !== -1) this.slots[at] = null;
      while (this.waiting.length > 0 && !this.closed && this.usableOrNew()) this.dispatch(this.waiting.shift()!);
    },
  };

  constructor(private readonly file: string, options: ReaderOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? LIST_QUERY_TIMEOUT_MS;
    this.closeWaitMs = options.closeWaitMs ?? CLOSE_WAIT_MS;
  }

  all(query: Parameters<SqlRunner['all']>[0]): Promise<Rows> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    const { sql, params } = sqlite.toQuery(query);
    return new Promise((resolve, reject) => {
      const job: Job = {
        sql,
        params: params as SqliteValue[],
        resolve,
        reject,
        timer: setTimeout(() => this.timedOut(job), this.timeoutMs),
      };
      this.dispatch(job);
    });
  }

  /** Waits up to closeWaitMs for the queries under way, then stops every thread. */
  async close(): Promise<void> {
    this.closed = true;
    const under = this.slots.flatMap((r) => (r ? [...r.jobs.values()] : []));
    const settled = Promise.allSettled(under.map((job) => new Promise<void>((done) => {
      const { resolve, reject } = job;
      job.resolve = (rows) => (resolve(rows), done());
      job.reject = (error) => (reject(error), done());
    })));
    await Promise.race([settled, platform.sleep(this.closeWaitMs)]);
    const closing = coded('the database is closed');
    for (const job of [...this.waiting, ...this.slots.flatMap((r) => (r ? [...r.jobs.values()] : []))]) {
      clearTimeout(job.timer);
      job.reject(closing);
    }
    this.waiting.length = 0;
    await Promise.all(this.slots.map((reader) => reader?.shutdown(CLOSE_CONNECTION_WAIT_MS)));
  }

  private dispatch(job: Job): void {
    if (this.closed) {
      clearTimeout(job.timer);
      job.reject(coded('the database is closed'));
      return;
    }
    const reader = this.usableOrNew();
    if (reader) reader.run(job);
    else this.waiting.push(job);
  }

  private timedOut(job: Job): void {
    const error = coded(`The list query ran past its time limit of ${this.timeoutMs} ms`, 'QUERY_TIMEOUT');
    const waitingAt = this.waiting.indexOf(job);
    if (waitingAt !== -1) this.waiting.splice(waitingAt, 1);
    else job.on?.timedOut(job);
    job.reject(error);
  }

  /** An idle reader, else a new one in a free slot, else the usable one holding the fewest queries; null when none. */
  private usableOrNew(): Reader | null {
    let best: Reader | null = null;
    let free = -1;
    for (let i = 0; i < this.slots.length; i++) {
      const reader = this.slots[i];
      if (!reader) free = free === -1 ? i : free;
      else if (reader.usable && (!best || reader.jobs.size < best.jobs.size)) best = reader;
    }
    if (best && (best.jobs.size === 0 || free === -1)) return best;
    if (free === -1) return best;
    const made = new Reader(this.file, this.events);
    this.slots[free] = made;
    return made;
  }
}
