// The request-target limit counts what was sent: characters as they are, bytes outside ASCII
// percent-encoded, whether the platform's URL carries them encoded (Bun) or as characters (Deno).
import { expect, test } from 'bun:test';
import { targetTooLong } from '../../../src/core/http/index.ts';

const LIMIT = 16 * 1024;
const url = (target: string) => `http://example.test${target}`;

test('ASCII: the limit itself passes, one more character is too long; the Host never counts', () => {
  expect(targetTooLong(url('/x?q=' + 'a'.repeat(LIMIT - 5)), LIMIT)).toBe(false);
  expect(targetTooLong(url('/x?q=' + 'a'.repeat(LIMIT - 4)), LIMIT)).toBe(true);
  expect(targetTooLong(`http://${'h'.repeat(LIMIT)}/x`, LIMIT)).toBe(false);
});

test('bytes outside ASCII count percent-encoded, encoded already (Bun) or not (Deno)', () => {
  const encoded = '%C3%A9'; // é as Bun's URL has it: 6 characters
  expect(targetTooLong(url('/x?q=' + encoded.repeat(2730)), LIMIT)).toBe(true); // 16,385
  expect(targetTooLong(url('/x?q=' + 'é'.repeat(2730)), LIMIT)).toBe(true); // 5 + 2730 × 6
  expect(targetTooLong(url('/x?q=' + 'é'.repeat(2729)), LIMIT)).toBe(false); // 16,379
  expect(targetTooLong(url('/x?q=' + '€'.repeat(1820)), LIMIT)).toBe(true); // 3 bytes: 9 each, 16,385
  expect(targetTooLong(url('/x?q=' + '😀'.repeat(1364)), LIMIT)).toBe(false); // 4 bytes: 12 each, 16,373
  expect(targetTooLong(url('/x?q=' + '😀'.repeat(1365)), LIMIT)).toBe(true); // 16,385
});
