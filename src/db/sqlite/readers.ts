// The list engine's runner on a SQLite file: every list query runs on a reader thread with its own
// read-only connection (./reader-worker.ts), never on the serving thread. bun:sqlite is
// synchronous: run inline, a group or a count over a million audit rows held both origins'
// event loop (the runtime's invocations included) for half a second or more. Readers see what
// has been committed, as any connection does: each write commits before its response.
import type { SQLQueryBindings } from 'bun:sqlite';
import { sqlite } from '../../query/dialect/sqlite.ts';
import type { SqlRunner } from '../../query/types.ts';

/** Reader threads: two, so that one long query does not hold up every other list page. */
const READERS = 2;

type Rows = Record<string, unknown>[];

interface Reply {
  id: number;
  rows?: Rows;
  error?: { message: string; code?: string };
}

interface Waiter {
  resolve(rows: Rows): void;
  reject(error: Error): void;
}

/** An error as the driver would have thrown it (its `code` decides 503 against 500). */
function driverError(error: { message: string; code?: string }): Error {
  return Object.assign(new Error(error.message), error.code ? { code: error.code } : {});
}

class Reader {
  readonly pending = new Map<number, Waiter>();
  private readonly inflight = new Set<Promise<Rows>>();
  private readonly worker = new Worker(new URL('./reader-worker.ts', import.meta.url).href);
  private next = 0;

  constructor(file: string, onGone: (reader: Reader) => void) {
    this.worker.unref();
    this.worker.onmessage = (event: MessageEvent<Reply>) => {
      const { id, rows, error } = event.data;
      const waiter = this.pending.get(id);
      this.pending.delete(id);
      if (error) waiter?.reject(driverError(error));
      else waiter?.resolve(rows ?? []);
    };
    // A reader that dies fails what it held; the next query gets a new one.
    const gone = (why: string) => {
      onGone(this);
      for (const waiter of this.pending.values()) waiter.reject(new Error(`list-query reader stopped: ${why}`));
      this.pending.clear();
    };
    this.worker.addEventListener('error', (event) => gone((event as ErrorEvent).message || 'error'));
    this.worker.addEventListener('close', () => gone('closed'));
    // Messages are handled in order: every query waits behind the open.
    this.send({ file }).catch(() => onGone(this));
  }

  send(message: { file?: string; sql?: string; params?: SQLQueryBindings[] }): Promise<Rows> {
    const id = this.next++;
    const answer = new Promise<Rows>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message });
    });
    this.inflight.add(answer);
    const settled = () => void this.inflight.delete(answer);
    answer.then(settled, settled);
    return answer;
  }

  /** Waits for the queries it holds, then stops. */
  async close(): Promise<void> {
    await Promise.allSettled(this.inflight);
    this.worker.terminate();
  }
}

export class SqliteReaders implements SqlRunner {
  readonly dialect = 'sqlite' as const;
  private readonly readers: (Reader | null)[] = new Array<Reader | null>(READERS).fill(null);
  private closed = false;

  constructor(private readonly file: string) {}

  all(query: Parameters<SqlRunner['all']>[0]): Promise<Rows> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    const { sql, params } = sqlite.toQuery(query);
    return this.pick().send({ sql, params: params as SQLQueryBindings[] });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.readers.map((reader) => reader?.close()));
    this.readers.fill(null);
  }

  /** An idle reader, else a new one while there is room, else the one holding the fewest queries. */
  private pick(): Reader {
    let best: Reader | null = null;
    let free = -1;
    for (let i = 0; i < this.readers.length; i++) {
      const reader = this.readers[i];
      if (!reader) free = free === -1 ? i : free;
      else if (!best || reader.pending.size < best.pending.size) best = reader;
    }
    if (best && (best.pending.size === 0 || free === -1)) return best;
    const made = new Reader(this.file, (gone) => {
      const at = this.readers.indexOf(gone);
      if (at !== -1) this.readers[at] = null;
    });
    this.readers[free] = made;
    return made;
  }
}
