// A host's stdout/stderr reach the server log line by line, each line cut to 1000 characters and
// at most 20 lines a second; a line that never ends (tens of megabytes without a newline) is read
// through once and logged once, cut, without being kept whole.
import { expect, test } from 'bun:test';
import type { Subprocess } from 'bun';
import { pumpOutput } from '../../../runtime/executor/server/host-output.ts';

function fakeHost(stdout: string[], stderr: string[] = []): Subprocess<'ignore', 'pipe', 'pipe'> {
  const stream = (chunks: string[]) =>
    new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
  return { stdout: stream(stdout), stderr: stream(stderr) } as unknown as Subprocess<'ignore', 'pipe', 'pipe'>;
}

test('lines split across chunks are joined; the last line without a newline is still logged', async () => {
  const logged: string[] = [];
  const out = pumpOutput(fakeHost(['hel', 'lo\nwor', 'ld\n\nlast']), 'h1', (l) => logged.push(l));
  await out.done;
  expect(logged).toEqual(['[h1] hello', '[h1] world', '[h1] ', '[h1] last']);
});

test('a line of 8 MB in 64 KB chunks is logged once, cut to 1000 characters, and the next line is intact', async () => {
  const logged: string[] = [];
  const chunk = 'x'.repeat(64 * 1024);
  const chunks = Array.from({ length: 128 }, () => chunk);
  chunks.push('y\nnext line\n');
  await pumpOutput(fakeHost(chunks), 'h2', (l) => logged.push(l)).done;
  expect(logged).toEqual([`[h2] ${'x'.repeat(1000)}`, '[h2] next line']);
});

test('stderr\'s tail tells an out-of-memory crash, however long the output before it', async () => {
  const out = pumpOutput(fakeHost([], ['z'.repeat(100_000), '\nRangeError: Out of memory\n']), 'h3', () => {});
  await out.done;
  expect(out.sawOutOfMemory()).toBe(true);
  // JavaScriptCore out of memory where it cannot throw: an assertion, then Bun's crash report.
  const exhausted = pumpOutput(fakeHost([], ['ASSERTION FAILED: MemoryExhaustion: Crash intentionally because memory is exhausted.\n', 'panic: abort() called\n']), 'h5', () => {});
  await exhausted.done;
  expect(exhausted.sawOutOfMemory()).toBe(true);
  const sandboxed = pumpOutput(fakeHost([], ['panic: Segmentation fault at address 0xBBADBEEF\n', 'oh no: Bun has crashed.\n']), 'h7', () => {});
  await sandboxed.done;
  expect(sandboxed.sawOutOfMemory()).toBe(true);
  const crashed = pumpOutput(fakeHost([], ['panic: Segmentation fault at address 0x0\n', 'oh no: Bun has crashed.\n']), 'h6', () => {});
  await crashed.done;
  expect(crashed.sawOutOfMemory()).toBe(false);
  const quiet = pumpOutput(fakeHost([], ['ordinary\n']), 'h4', () => {});
  await quiet.done;
  expect(quiet.sawOutOfMemory()).toBe(false);
});
