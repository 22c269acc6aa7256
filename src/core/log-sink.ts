// Where log lines go: stderr, gathered and written at most every FLUSH_MS or once FLUSH_BYTES are
// waiting (an access line per request must not cost a system call per request: a write per turn
// of the event loop was a sixth of the runtime's CPU under load), and written out synchronously
// when the process exits so that no line is lost to process.exit (pino's asynchronous destination
// lost some here). No worker thread, no transport: the same code runs on Deno.
import { writeSync } from 'node:fs';

/** How long to wait before trying again when the pipe behind the fd is full (EAGAIN). */
const FULL_PIPE_WAIT_MS = 1;
/** The longest a line waits to be written, and how much may wait. */
const FLUSH_MS = 50;
const FLUSH_BYTES = 64 * 1024;

export interface LogSink {
  write(line: string): void;
  /** Writes out what is buffered, now. */
  flush(): void;
}

export function batchedSink(fd: number): LogSink {
  let pending: string[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    size = 0;
    writeAll(fd, Buffer.from(text, 'utf8'));
  };
  process.on('exit', flush);
  return {
    write(line) {
      pending.push(line);
      size += line.length;
      if (size >= FLUSH_BYTES) return flush();
      if (timer === undefined) {
        timer = setTimeout(flush, FLUSH_MS);
        // Waiting lines never keep the process alive: the exit handler writes them.
        (timer as { unref?: () => void }).unref?.();
      }
    },
    flush,
  };
}

/** What a write waits on while the pipe is full (made the first time one is). */
let sleeper: Int32Array | undefined;

/** Writes every byte: a pipe takes part of a large write, or none while full (non-blocking fd). */
function writeAll(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      const code = (error as { code?: string }).code;
      // A closed stderr (EPIPE) has no reader left: the lines have nowhere to go.
      if (code !== 'EAGAIN' && code !== 'EBUSY') return;
      sleeper ??= new Int32Array(new SharedArrayBuffer(4));
      Atomics.wait(sleeper, 0, 0, FULL_PIPE_WAIT_MS);
    }
  }
}
