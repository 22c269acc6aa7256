// Invocation records packed into byte batches on the request path: every field comes back as it was
// given, whatever the strings hold, and a partial write leaves exactly the records after it.
import { expect, test } from 'bun:test';
import fc from 'fast-check';
import { BatchBuilder, decodeBatch, restOf } from '../../runtime/recorder/batch.ts';
import type { InvocationRecord } from '../../runtime/recorder/types.ts';

const shared = fc.constantFrom(...Array.from({ length: 4 }, () => crypto.randomUUID()));
const recordArb: fc.Arbitrary<InvocationRecord> = fc.record({
  at: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  endpointId: shared,
  workspaceId: shared,
  initiatorId: fc.oneof(shared, fc.uuid()),
  executionAccountId: fc.option(shared, { nil: null }),
  status: fc.integer({ min: 100, max: 599 }),
  durationMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
  // Valid oids are ASCII; the codec must not rely on it.
  oid: fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 128, unit: 'grapheme' })),
  executionId: fc.uuid(),
});

test('a batch decodes to the records appended, in order, across seals', () => {
  fc.assert(
    fc.property(fc.array(recordArb, { maxLength: 300 }), fc.array(recordArb, { maxLength: 50 }), (first, second) => {
      const builder = new BatchBuilder();
      for (const r of first) builder.append(r);
      const a = builder.seal();
      for (const r of second) builder.append(r);
      const b = builder.seal();
      expect(a.count).toBe(first.length);
      expect(decodeBatch(a)).toEqual(first);
      expect(decodeBatch(b)).toEqual(second);
      // Shared strings are stored once per batch.
      expect(a.strings.length).toBeLessThanOrEqual(new Set(first.flatMap((r) => [r.endpointId, r.workspaceId, r.initiatorId, r.executionAccountId ?? ''])).size);
    }),
    { numRuns: 200 },
  );
});

test('restOf leaves exactly the records after a partial write', () => {
  fc.assert(
    fc.property(fc.array(recordArb, { minLength: 1, maxLength: 200 }).chain((rs) => fc.tuple(fc.constant(rs), fc.nat({ max: rs.length }))), ([records, written]) => {
      const builder = new BatchBuilder();
      for (const r of records) builder.append(r);
      const rest = restOf(builder.seal(), written);
      expect(rest.count).toBe(records.length - written);
      expect(decodeBatch(rest)).toEqual(records.slice(written));
    }),
    { numRuns: 200 },
  );
});

test('a batch larger than the first buffer grows and keeps every record', () => {
  const builder = new BatchBuilder();
  const records: InvocationRecord[] = Array.from({ length: 5000 }, (_, i) => ({
    at: 1_700_000_000_000 + i, endpointId: 'e', workspaceId: 'w', initiatorId: 'u', executionAccountId: i % 2 ? 's' : null,
    status: 200 + (i % 400), durationMs: i / 7, oid: `oid-${i}-${'x'.repeat(i % 100)}`, executionId: crypto.randomUUID(),
  }));
  for (const r of records) builder.append(r);
  const batch = builder.seal();
  expect(batch.strings).toEqual(['e', 'w', 'u', 's']);
  expect(decodeBatch(batch)).toEqual(records);
});

test('a written batch\'s buffer is reused by the next seal, and stale bytes in it never leak into records', () => {
  fc.assert(
    fc.property(fc.array(recordArb, { minLength: 1, maxLength: 200 }), fc.array(recordArb, { maxLength: 200 }), (first, second) => {
      const builder = new BatchBuilder();
      for (const r of first) builder.append(r);
      const a = builder.seal();
      builder.recycle(a.bytes);
      builder.seal(); // hands over the current buffer and takes a's for the records that follow
      for (const r of second) builder.append(r);
      const c = builder.seal();
      expect(c.bytes.buffer).toBe(a.bytes.buffer);
      expect(decodeBatch(c)).toEqual(second);
    }),
    { numRuns: 200 },
  );
});
