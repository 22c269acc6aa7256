// Vets a guard's regular expression before it reaches the request path: it must compile in
// Unicode mode (as JSON Schema and Ajv read patterns) and must not invite catastrophic backtracking.
//
// Why reject rather than warn: a guard runs on the runtime's event loop before any deadline
// applies, so one request against `(a+)+$` can freeze every invocation for minutes. The check is
// the classic star-height test: a repeating quantifier (max >= 2) applied to a group that itself
// holds a variable quantifier (`*`, `+`, `{n,}`, `{n,m}` with m > n) is refused, and so are
// backreferences. It has false positives (`([a-z]+\.)*` is in fact safe) and misses overlapping
// alternation (`(a|a)*`); `maxLength` stays the real bound, which is why lint asks for it.
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
  if (hazard !== undefined) return { ok: false, message: hazard };
  return { ok: true, pattern: { source, regex } };
}

interface Group {
  /** The group holds a variable quantifier, directly or in a nested group. */
  variable: boolean;
}

/** Scans a pattern that already compiled in `u` mode; returns why it is refused, if it is. */
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
