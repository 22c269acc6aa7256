// Both ends of an SSE fan-out bench: a bare fan-out of pre-made frames (the baseline a server's
// own event streams are judged against), and subscribers in a process of their own
// (./sse-subscribers.ts) that report when each frame arrived.
import { join } from 'node:path';

const OPENED = new TextEncoder().encode(': open\n\n');
const SUBSCRIBER_CLIENT = join(import.meta.dir, 'sse-subscribers.ts');

/** The clock the subscriber process shares: performance.timeOrigin + performance.now(). */
export const sharedClock = () => performance.timeOrigin + performance.now();

/** Serves `path` as a bare SSE stream: every subscriber gets the same bytes, no reads, no serialising. */
export class BareFanOut {
  private readonly streams = new Set<ReadableStreamDefaultController<Uint8Array>>();

  constructor(readonly path: string) {}

  /** The stream's response for a request to `path`; undefined for anything else. */
  handle = (request: Request): Response | undefined => {
    if (new URL(request.url).pathname !== this.path) return undefined;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        this.streams.add((controller = c));
        c.enqueue(OPENED); // Bun sends a streamed response's headers with its first chunk
      },
      cancel: () => void this.streams.delete(controller),
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' } });
  };

  send(frame: Uint8Array): void {
    for (const c of this.streams) c.enqueue(frame);
  }

  end(): void {
    for (const c of this.streams) c.close();
    this.streams.clear();
  }
}

export interface Subscribers {
  /**
   * Resolves when every stream has ended: per subscriber, the id and arrival time (on
   * `sharedClock`) of each `message.created` frame, as [id, ms, id, ms, …].
   */
  arrivals(): Promise<number[][]>;
}

/** Starts `count` subscribers of `url` in another process; resolves once every response has arrived. */
export async function subscribe(url: string, count: number, key?: string): Promise<Subscribers> {
  const child = Bun.spawn([process.execPath, SUBSCRIBER_CLIENT, url, String(count), ...(key ? [key] : [])], { stdout: 'pipe', stderr: 'inherit', stdin: 'ignore' });
  const output = lines(child.stdout);
  if ((await output.next()).value !== 'READY') throw new Error(`the subscribers of ${url} did not start (exit ${await child.exited})`);
  return {
    async arrivals() {
      const line = (await output.next()).value;
      await child.exited;
      if (typeof line !== 'string' || !line.startsWith('ARRIVALS ')) throw new Error(`the subscribers of ${url} did not report`);
      return JSON.parse(line.slice('ARRIVALS '.length)) as number[][];
    },
  };
}

async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of stream) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n')) !== -1) {
      yield buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
    }
  }
}
