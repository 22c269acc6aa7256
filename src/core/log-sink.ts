// Where log lines go: stderr, in one write per turn of the event loop (an access line per request
// must not cost a system call per request), written out synchronously when the process exits so
// that no line is lost to process.exit (pino's asynchronous destination lost some here). No worker
// thread, no transport: the same code runs on Deno.
import { writeSync } from 'node:fs';
import { setImmediate } from 'node:timers';

/** How long to wait before trying again when the pipe behind the fd is full (EAGAIN). */
const FULL_PIPE_WAIT_MS = 1;

export interface LogSink {
  write(line: string): void;
  /** Writes out what is buffered, now. */
  flush(): void;
}

export function batchedSink(fd: number): LogSink {
  let pending: string[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    writeAll(fd, Buffer.from(text, 'utf8'));
  };
  process.on('exit', flush);
  return {
    write(line) {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

/** Writes every byte: a pipe takes part of a large write, or none while full (non-blocking fd). */
function writeAll(fd: number, bytes: Buffer): void {
  let offset = 0;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      const code = (error as { code?: string }).code;
      // A closed stderr (EPIPE) has no reader left: the lines have nowhere to go.
      if (code !== 'EAGAIN' && code !== 'EBUSY') return;
      Atomics.wait(sleeper, 0, 0, FULL_PIPE_WAIT_MS);
    }
  }
}
