// Latency percentiles from the statistics histogram (1-2-5 bucket bounds in ms).
import { expect, test } from 'bun:test';
import fc from 'fast-check';
import { LATENCY_BOUNDS_MS, bucketOf, percentile } from '../../src/core/statistics/statistics.ts';

const histogram = (samples: number[]) => {
  const counts = new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0);
  for (const ms of samples) counts[bucketOf(ms)]!++;
  return counts;
};

test('three calls of ~300 ms are reported near 300 ms, not at the bucket bound (500)', () => {
  const counts = histogram([301, 305, 310]);
  expect(percentile(counts, 0.5)).toBeGreaterThan(250);
  expect(percentile(counts, 0.5)).toBeLessThan(400);
  expect(percentile(counts, 0.99)).toBe(500);
});

test('no data → 0; the open last bucket reports its lower bound', () => {
  expect(percentile(histogram([]), 0.5)).toBe(0);
  expect(percentile(histogram([90_000, 120_000]), 0.5)).toBe(60_000);
});

test('a percentile always lies in the bucket of the sample at its rank, and grows with p', () => {
  fc.assert(
    fc.property(fc.array(fc.double({ min: 0.01, max: 59_000, noNaN: true }), { minLength: 1, maxLength: 200 }), (samples) => {
      const counts = histogram(samples);
      const sorted = [...samples].sort((a, b) => a - b);
      let previous = 0;
      for (const p of [0.5, 0.95, 0.99]) {
        const value = percentile(counts, p);
        const actual = sorted[Math.max(1, Math.ceil(samples.length * p)) - 1]!;
        const b = bucketOf(actual);
        const lower = b === 0 ? 0 : LATENCY_BOUNDS_MS[b - 1]!;
        expect(value).toBeGreaterThanOrEqual(lower);
        expect(value).toBeLessThanOrEqual(LATENCY_BOUNDS_MS[b]!);
        expect(value).toBeGreaterThanOrEqual(previous);
        previous = value;
      }
    }),
  );
});
