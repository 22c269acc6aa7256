// The line protocol's framing: lines survive arbitrary chunking (including inside multi-byte
// characters), header fields parse, and an oversized line stops the reader.
import { describe, expect, test } from 'bun:test';
import { decodeOutcome } from '../../../runtime/executor/server/decode.ts';
import { RESULT_LIMIT_BYTES } from '../../../runtime/executor/contract/limits.ts';
import { eachLine, field, line, payload } from '../../../runtime/executor/wire/lines.ts';
import { lineReader } from '../../../runtime/executor/wire/line-reader.ts';

test('header fields and payload round-trip', () => {
  const text = line('R', [12, 345678], JSON.stringify({ a: 'tab\there\nnewline' }));
  expect(text.includes('\n')).toBe(false);
  expect([text[0], field(text, 0), field(text, 1), field(text, 2)]).toEqual(['R', 12, 345678, -1]);
  expect(JSON.parse(payload(text))).toEqual({ a: 'tab\there\nnewline' });
  expect(field('S\t', 0)).toBe(-1);
  expect(field('R x\t', 0)).toBe(-1);
});

test('eachLine skips empty lines', () => {
  const seen: string[] = [];
  eachLine('a\n\nb\nc', (l) => seen.push(l));
  expect(seen).toEqual(['a', 'b', 'c']);
});

test('lines survive being cut at every byte, multi-byte characters included', () => {
  const lines = ['D 1\t"é€😀"', 'C 2\t{"x":"' + 'ß'.repeat(1000) + '"}', 'k 3\t'];
  const bytes = new TextEncoder().encode(lines.join('\n') + '\n');
  for (const step of [1, 2, 3, 5, 7, 64, 4096]) {
    const got: string[] = [];
    const read = lineReader(1 << 20, (batch) => eachLine(batch, (l) => got.push(l)), () => {
      throw new Error('overflow');
    });
    for (let i = 0; i < bytes.length; i += step) read(bytes.subarray(i, i + step));
    expect(got).toEqual(lines);
  }
});

test('a line longer than the limit is reported once and nothing more is read', () => {
  let overflows = 0;
  const got: string[] = [];
  const read = lineReader(10, (batch) => got.push(batch), () => overflows++);
  read(new TextEncoder().encode('x'.repeat(8)));
  read(new TextEncoder().encode('y'.repeat(8)));
  read(new TextEncoder().encode('\nok\n'));
  expect(overflows).toBe(1);
  expect(got).toEqual([]);
});

describe('outcome payloads (header, tab, value texts)', () => {
  const crashed = { kind: 'failed', status: 502, code: 'EXECUTOR_CRASHED' };

  test('values are cut from the text after the tab by the lengths in the header', () => {
    const payload = '{"kind":"results","results":[{"name":"a","visible":true,"len":7},{"name":"u","visible":true},{"name":"b","visible":true,"len":3}],"logs":["l"]}\t{"x":1}[2]';
    expect(decodeOutcome(payload)).toEqual({
      kind: 'results',
      results: [{ name: 'a', visible: true, json: '{"x":1}' }, { name: 'u', visible: true }, { name: 'b', visible: true, json: '[2]' }],
      logs: ['l'],
    });
    expect(decodeOutcome('{"kind":"thrown","status":418,"len":4,"logs":[]}\t"no"')).toEqual({ kind: 'thrown', status: 418, bodyJson: '"no"', logs: [] });
    expect(decodeOutcome('{"kind":"thrown","status":204,"logs":[]}\t')).toEqual({ kind: 'thrown', status: 204, logs: [] });
  });

  test.each([
    ['lengths short of the text', '{"kind":"results","results":[{"name":"a","visible":true,"len":1}],"logs":[]}\t12'],
    ['a length past the text', '{"kind":"results","results":[{"name":"a","visible":true,"len":5}],"logs":[]}\t12'],
    ['a negative or fractional length', '{"kind":"results","results":[{"name":"a","visible":true,"len":-1}],"logs":[]}\t'],
    ['text without a length', '{"kind":"results","results":[{"name":"a","visible":true}],"logs":[]}\t1'],
    ['a thrown body of another length', '{"kind":"thrown","status":400,"len":2,"logs":[]}\t123'],
    ['a header that is not JSON', '{"kind":"results"\t1'],
  ])('%s → EXECUTOR_CRASHED', (_name, payload) => {
    expect(decodeOutcome(payload)).toMatchObject(crashed);
  });

  test('the server counts the bytes of long value texts itself: over 1 MiB is RESULT_TOO_LARGE whatever the Worker measured', () => {
    const over = `"${'€'.repeat(Math.ceil(RESULT_LIMIT_BYTES / 3))}"`; // fewer characters than the limit, more bytes
    expect(decodeOutcome(`{"kind":"results","results":[{"name":"a","visible":true,"len":${over.length}}],"logs":[]}\t${over}`)).toMatchObject({ status: 502, code: 'RESULT_TOO_LARGE' });
    expect(decodeOutcome(`{"kind":"thrown","status":400,"len":${over.length},"logs":[]}\t${over}`)).toMatchObject({ status: 502, code: 'RESULT_TOO_LARGE' });
    const under = `"${'€'.repeat(Math.floor(RESULT_LIMIT_BYTES / 3) - 10)}"`;
    expect(decodeOutcome(`{"kind":"results","results":[{"name":"a","visible":true,"len":${under.length}}],"logs":[]}\t${under}`)).toMatchObject({ kind: 'results' });
  });
});
