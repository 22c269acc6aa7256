// offset, limit, count, debug: plain values given once.
import { fail, LIMITS } from '../model/index.ts';

function single(raw: unknown, pointer: string): string {
  if (Array.isArray(raw)) fail(pointer, 'given more than once');
  if (typeof raw !== 'string') fail(pointer, 'expected a plain value');
  return raw.trim();
}

/** A decimal integer in [min, max]. */
export function parseInteger(raw: unknown, pointer: string, min: number, max: number): number {
  const text = single(raw, pointer);
  if (!/^\d{1,16}$/.test(text)) fail(pointer, `expected an integer from ${min} to ${max}`);
  const n = Number(text);
  if (n < min || n > max) fail(pointer, `expected an integer from ${min} to ${max}`);
  return n;
}

/** `true` or `false`; anything else is refused rather than guessed. */
export function parseBoolean(raw: unknown, pointer: string): boolean {
  const text = single(raw, pointer).toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  return fail(pointer, 'expected true or false');
}

export const parseLimit = (raw: unknown, pointer: string) => parseInteger(raw, pointer, 0, LIMITS.limitMax);
export const parseOffset = (raw: unknown, pointer: string) => parseInteger(raw, pointer, 0, LIMITS.offsetMax);
