// JSON Schema's reading of JSON values, shared by the compiled guard and the violation report:
// types, string length in code points, multipleOf on decimals, pointer tokens.
import type { JsonType } from './ir.ts';

/** The JSON type of a parsed JSON value (`integer` is reported as `number`). */
export function jsonTypeOf(value: unknown): Exclude<JsonType, 'integer'> | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return Number.isFinite(value) ? 'number' : undefined;
    case 'boolean':
      return 'boolean';
    case 'object':
      return Array.isArray(value) ? 'array' : 'object';
    default:
      return undefined;
  }
}

/** Whether `value` is of one of `types` (absent = any JSON value). */
export function typeAccepts(types: readonly JsonType[] | undefined, value: unknown): boolean {
  if (types === undefined) return true;
  const actual = jsonTypeOf(value);
  if (actual === undefined) return false;
  if (types.includes(actual)) return true;
  return actual === 'number' && types.includes('integer') && Number.isInteger(value);
}

/**
 * Length in Unicode code points, as JSON Schema counts it (a surrogate pair is one character;
 * a lone surrogate counts as one). Stops counting past `stopAfter`.
 */
export function codePointLength(text: string, stopAfter = Infinity): number {
  let n = 0;
  for (let i = 0; i < text.length && n <= stopAfter; i++, n++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

/**
 * `multipleOf` for a decimal divisor. IEEE arithmetic makes 19.99 / 0.01 = 1998.9999999999998,
 * so an exact test would refuse amounts users obviously mean. The quotient may be off an integer
 * by 1e-9 (Ajv's `multipleOfPrecision: 9`) or by the rounding of the operands, a few units in the
 * last place of the quotient, whichever is larger. Integer divisors are tested exactly (TypeBox's `%`).
 */
export function isMultipleOf(value: number, divisor: number): boolean {
  const q = value / divisor;
  if (!Number.isFinite(q)) return false;
  return Math.abs(q - Math.round(q)) <= Math.max(1e-9, Math.abs(q) * 8 * Number.EPSILON);
}

/** Escapes one JSON-pointer token (RFC 6901). */
export const pointerToken = (key: string | number): string => String(key).replace(/~/g, '~0').replace(/\//g, '~1');
