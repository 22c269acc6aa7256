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
/** What a feed keeps of the newest events: at most this many, and about this many bytes. */
const KEPT = 1000;
const KEPT_BYTES = 8 * 1024 * 1024;
const PAGE = 100;
/** Bytes a stream queues for a client that is not reading, before it waits. */
const HIGH_WATER = 256 * 1024;

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

/** One event as its stream sends it, encoded once for every subscriber. */
interface Frame {
  seq: number;
  final: boolean;
  bytes: Uint8Array;
}

const encoder = new TextEncoder();
const HEARTBEAT = encoder.encode(': keep-alive\n\n');
const frameOf = (e: EventRow): Frame => ({
  seq: e.seq,
  final: FINAL_EVENTS.has(e.type),
  bytes: encoder.encode(`id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify({ ...e, data: e.data ?? null, createdAt: e.createdAt.toISOString() })}\n\n`),
});

class RunFeed {
  /** The newest frames read, in seq order. */
  private kept: Frame[] = [];
  private keptBytes = 0;
  private reading: Promise<void> | null = null;
  private again = false;
  private waiters = new Set<() => void>();
  subscribers = 0;

  /** `last`: the seq read up to (the first subscriber's cursor: nothing older is read for the feed). */
  constructor(
    private readonly page: (after: number) => Promise<Frame[]>,
    private last: number,
  ) {}

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
          const frames = await this.page(this.last);
          if (frames.length === 0) break;
          for (const frame of frames) {
            this.kept.push(frame);
            this.keptBytes += frame.bytes.byteLength;
          }
          this.last = frames[frames.length - 1]!.seq;
          while (this.kept.length > 1 && (this.kept.length > KEPT || this.keptBytes > KEPT_BYTES)) this.keptBytes -= this.kept.shift()!.bytes.byteLength;
          if (frames.length < PAGE) break;
        }
      } while (this.again);
    })().finally(() => {
      this.reading = null;
      for (const wake of [...this.waiters]) wake();
    });
    return this.reading;
  }

  /** Frames after `cursor` this feed holds; null when the cursor is older than what it keeps. */
  after(cursor: number): Frame[] | null {
    const first = this.kept[0];
    if (first ? cursor < first.seq - 1 : cursor < this.last) return null;
    return this.kept.filter((f) => f.seq > cursor);
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

  private page = (runId: string) => async (after: number): Promise<Frame[]> => {
    const { events } = this.db.t;
    const rows = await this.db.read((q) => q.select().from(events).where(and(eq(events.runId, runId), gt(events.seq, after))).orderBy(asc(events.seq)).limit(PAGE));
    return rows.map(frameOf);
  };

  /** The stream of run `runId`'s events after `cursor`, as an SSE response. */
  open(runId: string, cursor: number): Response {
    if (this.closed) return new Response(null, { status: 503, headers: { 'retry-after': '1' } });
    let feed = this.feeds.get(runId);
    if (!feed) this.feeds.set(runId, (feed = new RunFeed(this.page(runId), cursor)));
    feed.subscribers++;
    const ownPage = this.page(runId);
    let open = true;
    let end = () => {};
    const leave = () => {
      if (!open) return;
      open = false;
      this.ends.delete(end);
      if (--feed.subscribers === 0 && this.feeds.get(runId) === feed) this.feeds.delete(runId);
    };
    // Pulled, not pushed: an event is sent only while the client reads (the queue holds at most
    // HIGH_WATER bytes); a client that stops reading costs a bounded buffer, not the run's events.
    let pulled: (() => void) | null = null;
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          end = () => {
            if (!open) return;
            leave();
            pulled?.();
            try {
              controller.close();
            } catch {
              // Already closed.
            }
          };
          this.ends.add(end);
          const roomFor = async () => {
            while (open && (controller.desiredSize ?? 1) <= 0) {
              await new Promise<void>((resolve) => {
                pulled = resolve;
                setTimeout(resolve, 1000);
              });
            }
          };
          void (async () => {
            let position = cursor;
            let lastWrite = Date.now();
            let lastEndCheck = 0;
            const send = (bytes: Uint8Array) => {
              controller.enqueue(bytes);
              lastWrite = Date.now();
            };
            try {
              await feed.refresh();
              while (open) {
                const batch = feed.after(position) ?? (await ownPage(position));
                let finished = false;
                for (const frame of batch) {
                  await roomFor();
                  if (!open) break;
                  send(frame.bytes);
                  position = frame.seq;
                  if (frame.final) finished = true;
                }
                // Whether the run has ended is asked of the database only now and then (a stream
                // opened at or past the end, or a run deleted): the final frame says it otherwise.
                if (!finished && batch.length === 0 && Date.now() - lastEndCheck >= 1000) {
                  lastEndCheck = Date.now();
                  if (await this.ended(runId, position)) finished = true;
                }
                if (finished) break;
                if (batch.length === 0) {
                  await feed.changed(Math.min(POLL_MS * 2, HEARTBEAT_MS));
                  if (open && Date.now() - lastWrite >= HEARTBEAT_MS) send(HEARTBEAT);
                }
              }
              if (open) {
                leave();
                controller.close();
              }
            } catch {
              if (open) {
                leave();
                controller.error(new Error('event stream failed'));
              }
            } finally {
              leave();
            }
          })();
        },
        pull: () => {
          pulled?.();
          pulled = null;
        },
        cancel: () => leave(),
      },
      { highWaterMark: HIGH_WATER, size: (chunk) => chunk?.byteLength ?? 0 },
    );
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
