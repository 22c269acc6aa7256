// GET /agents/runs/{runId}/events/stream (DESIGN §5): Server-Sent Events from the database. Each
// stream starts after its cursor (Last-Event-ID or ?after=), sends every later event once and in
// seq order, a comment line every 15 s, and closes after the run's final state event.
//
// One feed per run in this process reads new events once for all its subscribers and keeps the
// recent ones; it reads when this process commits events of the run and polls for events that
// other processes commit. A subscriber behind the kept ones reads its own pages until it catches up.
import { and, asc, eq, gt } from 'drizzle-orm';
import type { Database } from '../core/db/index.ts';
import type { RunStore } from './store.ts';

const FINAL_EVENTS = new Set(['run.completed', 'run.failed', 'run.cancelled', 'run.timed_out']);
const FINAL_STATUSES = new Set(['completed', 'failed', 'cancelled', 'timed_out']);
const HEARTBEAT_MS = 15_000;
/** How often a feed with subscribers looks for events committed by other processes. */
const POLL_MS = 500;
const KEPT = 1000;
const PAGE = 500;

interface EventRow {
  id: string;
  runId: string;
  rootRunId: string;
  parentRunId: string | null;
  seq: number;
  type: string;
  tickIndex: number | null;
  actor: string;
  data: unknown;
  createdAt: Date;
}

const eventJson = (e: EventRow) => ({ ...e, data: e.data ?? null, createdAt: e.createdAt.toISOString() });

class RunFeed {
  /** The newest events read, in seq order (at most KEPT). */
  private kept: EventRow[] = [];
  private last = 0;
  private reading: Promise<void> | null = null;
  private again = false;
  private waiters = new Set<() => void>();
  subscribers = 0;

  constructor(private readonly page: (after: number) => Promise<EventRow[]>) {}

  /** Reads what was committed since the last read, then wakes the subscribers. */
  refresh(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        for (;;) {
          const rows = await this.page(this.last);
          if (rows.length === 0) break;
          this.kept.push(...rows);
          this.last = rows[rows.length - 1]!.seq;
          if (this.kept.length > KEPT) this.kept = this.kept.slice(-KEPT);
          if (rows.length < PAGE) break;
        }
      } while (this.again);
    })().finally(() => {
      this.reading = null;
      for (const wake of [...this.waiters]) wake();
    });
    return this.reading;
  }

  /** Events after `cursor` this feed holds; null when the cursor is older than what it keeps. */
  after(cursor: number): EventRow[] | null {
    const first = this.kept[0];
    if (first && cursor < first.seq - 1) return null;
    if (!first && cursor < this.last) return null;
    return this.kept.filter((e) => e.seq > cursor);
  }

  /** Resolves at the next refresh, or after `ms`. */
  changed(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }
}

export class RunEventStreams {
  private readonly feeds = new Map<string, RunFeed>();
  /** Ends each open stream. */
  private readonly ends = new Set<() => void>();
  private closed = false;
  private readonly poller: ReturnType<typeof setInterval>;

  constructor(
    private readonly db: Database,
    runs: RunStore,
  ) {
    runs.onAppended((runId) => void this.feeds.get(runId)?.refresh().catch(() => {}));
    this.poller = setInterval(() => {
      for (const feed of this.feeds.values()) void feed.refresh().catch(() => {});
    }, POLL_MS);
  }

  /** Ends every open stream (the server is stopping) and stops polling. */
  close(): void {
    this.closed = true;
    clearInterval(this.poller);
    for (const end of [...this.ends]) end();
  }

  private page = (runId: string) => async (after: number): Promise<EventRow[]> => {
    const { events } = this.db.t;
    return this.db.read((q) => q.select().from(events).where(and(eq(events.runId, runId), gt(events.seq, after))).orderBy(asc(events.seq)).limit(PAGE));
  };

  /** The stream of run `runId`'s events after `cursor`, as an SSE response. */
  open(runId: string, cursor: number): Response {
    if (this.closed) return new Response(null, { status: 503, headers: { 'retry-after': '1' } });
    let feed = this.feeds.get(runId);
    if (!feed) this.feeds.set(runId, (feed = new RunFeed(this.page(runId))));
    feed.subscribers++;
    const ownPage = this.page(runId);
    const encoder = new TextEncoder();
    let open = true;
    let end = () => {};
    const leave = () => {
      if (!open) return;
      open = false;
      this.ends.delete(end);
      if (--feed.subscribers === 0 && this.feeds.get(runId) === feed) this.feeds.delete(runId);
    };
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        end = () => {
          if (!open) return;
          leave();
          try {
            controller.close();
          } catch {
            // Already closed.
          }
        };
        this.ends.add(end);
        void (async () => {
          let position = cursor;
          let lastWrite = Date.now();
          const send = (text: string) => {
            controller.enqueue(encoder.encode(text));
            lastWrite = Date.now();
          };
          try {
            await feed.refresh();
            while (open) {
              const batch = feed.after(position) ?? (await ownPage(position));
              let finished = false;
              if (batch.length > 0) {
                send(batch.map((e) => `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(eventJson(e))}\n\n`).join(''));
                position = batch[batch.length - 1]!.seq;
                finished = batch.some((e) => FINAL_EVENTS.has(e.type));
              } else if (await this.ended(runId, position)) {
                finished = true;
              }
              if (finished) break;
              if (batch.length === 0) {
                await feed.changed(Math.min(POLL_MS * 2, HEARTBEAT_MS));
                if (Date.now() - lastWrite >= HEARTBEAT_MS) send(': keep-alive\n\n');
              }
            }
            if (open) controller.close();
          } catch {
            if (open) controller.error(new Error('event stream failed'));
          } finally {
            leave();
          }
        })();
      },
      cancel: leave,
    });
    return new Response(body, {
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' },
    });
  }

  /** True when the run has ended and `position` is at its last event (its final state event). */
  private async ended(runId: string, position: number): Promise<boolean> {
    const { runs } = this.db.t;
    const [run] = await this.db.read((q) => q.select({ status: runs.status, last: runs.eventSeq }).from(runs).where(eq(runs.id, runId)));
    return !run || (FINAL_STATUSES.has(run.status) && position >= run.last);
  }
}
