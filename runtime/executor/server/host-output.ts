// Forwards a host's stdout/stderr (component console output, Bun crash reports) to the server
// log, line by line and rate-limited so a chatty component cannot flood it, and remembers the
// tail of stderr to tell an out-of-memory crash from any other.
import type { ChildProcess } from '../../../src/core/platform/index.ts';

const LINES_PER_SECOND = 20;
const LINE_CHARS = 1000;
const STDERR_TAIL_CHARS = 8 * 1024;

/**
 * What a host's last words say when memory ran out: a RangeError nobody caught, or JavaScriptCore
 * giving up where it cannot throw: `ASSERTION FAILED: MemoryExhaustion: Crash intentionally because
 * memory is exhausted.`, or, inside the sandbox, only its deliberate crash (WTFCrash writes to
 * 0xBBADBEEF; Bun reports `Segmentation fault at address 0xBBADBEEF`). A bomb of many small objects
 * ends so. That deliberate crash also ends a failed release assertion, but in a host held to its
 * address-space limit running out of it is what brings one about.
 */
const OUT_OF_MEMORY = /out of memory|OutOfMemory|bad_alloc|MemoryExhaustion|memory is exhausted|0xBBADBEEF/i;

export interface HostOutput {
  done: Promise<void>;
  sawOutOfMemory(): boolean;
}

export function pumpOutput(
  proc: Pick<ChildProcess, 'stdout' | 'stderr'>,
  name: string,
  log: (line: string) => void,
): HostOutput {
  let tail = '';
  let windowStart = 0;
  let inWindow = 0;
  let dropped = 0;
  const emit = (text: string): void => {
    const now = Date.now();
    if (now - windowStart >= 1000) {
      if (dropped > 0) log(`[${name}] … ${dropped} lines of output dropped`);
      windowStart = now;
      inWindow = 0;
      dropped = 0;
    }
    if (++inWindow <= LINES_PER_SECOND) log(`[${name}] ${text.slice(0, LINE_CHARS)}`);
    else dropped++;
  };
  // Linear in the output: each chunk is scanned once, and of a line only its first LINE_CHARS
  // characters are kept (a component printing tens of megabytes without a newline must not cost
  // the server's thread more than reading them).
  const pump = async (stream: ReadableStream<Uint8Array>, tap: (text: string) => void): Promise<void> => {
    const decoder = new TextDecoder();
    /** The start of the line not yet ended, at most LINE_CHARS characters of it. */
    let rest = '';
    let pending = false;
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      tap(text);
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        emit(rest + text.slice(start, Math.min(nl, start + LINE_CHARS)));
        rest = '';
        pending = false;
        start = nl + 1;
      }
      if (start < text.length) {
        pending = true;
        if (rest.length < LINE_CHARS) rest += text.slice(start, start + LINE_CHARS - rest.length);
      }
    }
    if (pending) emit(rest);
  };
  const done = Promise.all([
    pump(proc.stdout, () => {}),
    pump(proc.stderr, (text) => {
      tail = (tail + text).slice(-STDERR_TAIL_CHARS);
    }),
  ]).then(() => {});
  return { done, sawOutOfMemory: () => OUT_OF_MEMORY.test(tail) };
}
