// Vets a guard's regular expression before it reaches the request path: it must compile in
// Unicode mode (as JSON Schema and Ajv read patterns), and it must match in time linear in the
// input, since a guard runs on the runtime's event loop before any deadline applies.
//
// JavaScript's engine backtracks: `(a+)+$` takes exponential time, and even `[a-z]+\d` is
// quadratic when unanchored (100,000 characters: 12 s). So only a pattern without an unbounded
// quantifier (`*`, `+`, `{n,}`) and without a quantified group that itself varies (a quantifier
// or alternatives inside) runs on it; every other one runs on RE2 (`re2js`, a JavaScript port:
// linear time, ~0.6 µs for a short string against ~0.05 natively). RE2 has no lookaround and no
// backreferences: such a pattern is refused when it needs RE2, and backreferences always are.
import { RE2JS } from 're2js';
import type { Pattern } from './ir.ts';

export const MAX_PATTERN_LENGTH = 1000;

export type PatternResult = { ok: true; pattern: Pattern } | { ok: false; message: string };

/** Compiles `source` with the `u` flag (never `g`/`y`: `test` must not carry `lastIndex` state). */
export function compilePattern(source: string): PatternResult {
  if (source.length > MAX_PATTERN_LENGTH) return { ok: false, message: `Pattern is longer than ${MAX_PATTERN_LENGTH} characters` };
  let regex: RegExp;
  try {
    regex = new RegExp(source, 'u');
  } catch (error) {
    return { ok: false, message: `Invalid regular expression: ${error instanceof Error ? error.message : String(error)}` };
  }
  const hazard = backtrackingHazard(source);
  if (hazard === undefined && !hasUnboundedQuantifier(source)) return { ok: true, pattern: { source, regex, native: true } };
  if (hazard?.startsWith('Backreferences')) return { ok: false, message: hazard };
  try {
    return { ok: true, pattern: { source, regex: RE2JS.compile(toRe2Syntax(source)), native: false } };
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^.*?error parsing regexp: /, '') : String(error);
    return {
      ok: false,
      message: `This pattern repeats without bound, so it is matched by RE2 in linear time, which does not support it (${reason}); lookaround and backreferences are not available`,
    };
  }
}

/** Whether the pattern has `*`, `+` or `{n,}` outside character classes and escapes. */
function hasUnboundedQuantifier(source: string): boolean {
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') i = skipEscape(source, i);
    else if (c === '[') i = skipClass(source, i);
    else if (c === '*' || c === '+') return true;
    else if (c === '{') {
      const q = readQuantifier(source, i);
      if (q && q.max === Infinity) return true;
    }
  }
  return false;
}

/** ECMAScript's `\uXXXX` and `\u{X…}` in RE2's spelling, `\x{…}`; every other character as it is. */
function toRe2Syntax(source: string): string {
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const rest = source.slice(i + 1);
    const braced = /^u\{([0-9a-fA-F]{1,6})\}/.exec(rest);
    const plain = braced ? null : /^u([0-9a-fA-F]{4})/.exec(rest);
    const hex = braced?.[1] ?? plain?.[1];
    if (hex !== undefined) {
      out += `\\x{${hex}}`;
      i += (braced ?? plain)![0].length;
    } else {
      out += c + (source[i + 1] ?? '');
      i++;
    }
  }
  return out;
}

interface Group {
  /** The group holds a variable quantifier, directly or in a nested group. */
  variable: boolean;
}

/**
 * Scans a pattern that already compiled in `u` mode; returns why JavaScript's engine must not run
 * it, if so: backreferences (refused outright), or a quantified group that varies (RE2 runs it).
 */
export function backtrackingHazard(source: string): string | undefined {
  const stack: Group[] = [{ variable: false }];
  // The atom a following quantifier would apply to: a closed group (with what it held) or a single item.
  let last: { group: boolean; variable: boolean } | undefined;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && source[i + 2] === '<')) {
        return 'Backreferences are not allowed in a guard pattern: they can take exponential time';
      }
      i = skipEscape(source, i);
      last = { group: false, variable: false };
    } else if (c === '[') {
      i = skipClass(source, i);
      last = { group: false, variable: false };
    } else if (c === '(') {
      stack.push({ variable: false });
      if (source[i + 1] === '?') i = skipGroupPrefix(source, i + 1);
      last = undefined;
    } else if (c === ')') {
      const group = stack.pop() ?? { variable: false };
      const parent = stack[stack.length - 1];
      if (parent && group.variable) parent.variable = true;
      last = { group: true, variable: group.variable };
    } else if (c === '|') {
      // Alternatives that overlap backtrack like a variable quantifier: `(a|aa){0,30}b`.
      stack[stack.length - 1]!.variable = true;
      last = undefined;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      const quantifier = readQuantifier(source, i);
      if (quantifier === undefined) {
        last = { group: false, variable: false };
        continue;
      }
      const { min, max, end } = quantifier;
      if (last?.group && last.variable && max >= 2) {
        return `Nested quantifiers such as (a+)+ can take exponential time (at character ${i + 1}); rewrite the pattern without repeating a group that holds a * or + quantifier, or use enum, format or length rules`;
      }
      if (max > min && max >= 2) stack[stack.length - 1]!.variable = true;
      i = source[end + 1] === '?' ? end + 1 : end;
      last = undefined;
    } else {
      last = { group: false, variable: false };
    }
  }
  return undefined;
}

function readQuantifier(source: string, i: number): { min: number; max: number; end: number } | undefined {
  const c = source[i];
  if (c === '*') return { min: 0, max: Infinity, end: i };
  if (c === '+') return { min: 1, max: Infinity, end: i };
  if (c === '?') return { min: 0, max: 1, end: i };
  const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i, i + 32));
  if (!match) return undefined;
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
  return { min, max, end: i + match[0].length - 1 };
}

/** Index of the last character of the escape starting at `i`. */
function skipEscape(source: string, i: number): number {
  const next = source[i + 1];
  if ((next === 'p' || next === 'P' || next === 'u') && source[i + 2] === '{') {
    const close = source.indexOf('}', i + 3);
    return close === -1 ? source.length - 1 : close;
  }
  return i + 1;
}

/** Index of the `]` closing the class opened at `i` (Unicode mode: classes do not nest). */
function skipClass(source: string, i: number): number {
  for (let j = i + 1; j < source.length; j++) {
    if (source[j] === '\\') j = skipEscape(source, j);
    else if (source[j] === ']') return j;
  }
  return source.length - 1;
}

/** Skips `?:`, `?=`, `?!`, `?<=`, `?<!` and `?<name>` after a `(`; returns the last index consumed. */
function skipGroupPrefix(source: string, i: number): number {
  const next = source[i + 1];
  if (next === ':' || next === '=' || next === '!') return i + 1;
  if (next === '<') {
    if (source[i + 2] === '=' || source[i + 2] === '!') return i + 2;
    const close = source.indexOf('>', i + 2);
    return close === -1 ? i + 1 : close;
  }
  return i;
}
