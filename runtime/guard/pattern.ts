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
/**
 * RE2 expands counted repetition: `(?:ab|cd){1,1000}` is ~15,000 instructions, ~5 MB in re2js, and
 * a pattern of 1000 characters could reach 55 MB. A pattern RE2 runs may have this many
 * (estimated before compiling; `^.{1,1000}x+$` needs ~2,000).
 */
export const MAX_RE2_PROGRAM = 5000;

/** `re2Size`: the estimated RE2 program size (0 when JavaScript's engine runs it), for a guard's own budget. */
export type PatternResult = { ok: true; pattern: Pattern; re2Size: number } | { ok: false; message: string };

/**
 * Compiled patterns by source, shared by every guard and kept across index builds (a compiled
 * pattern is stateless for `test`). Bounded by count and by the RE2 program sizes it holds.
 */
const CACHE_ENTRIES = 1000;
const CACHE_RE2_SIZE = 40_000;
const cache = new Map<string, PatternResult & { ok: true }>();
let cachedRe2Size = 0;

/** Compiles `source` with the `u` flag (never `g`/`y`: `test` must not carry `lastIndex` state). */
export function compilePattern(source: string): PatternResult {
  const hit = cache.get(source);
  if (hit) {
    cache.delete(source);
    cache.set(source, hit);
    return hit;
  }
  const result = compileUncached(source);
  if (!result.ok) return result;
  cache.set(source, result);
  cachedRe2Size += result.re2Size;
  for (const [key, old] of cache) {
    if (cache.size <= CACHE_ENTRIES && cachedRe2Size <= CACHE_RE2_SIZE) break;
    cache.delete(key);
    cachedRe2Size -= old.re2Size;
  }
  return result;
}

function compileUncached(source: string): PatternResult {
  if (source.length > MAX_PATTERN_LENGTH) return { ok: false, message: `Pattern is longer than ${MAX_PATTERN_LENGTH} characters` };
  let regex: RegExp;
  try {
    regex = new RegExp(source, 'u');
  } catch (error) {
    return { ok: false, message: `Invalid regular expression: ${error instanceof Error ? error.message : String(error)}` };
  }
  const hazard = backtrackingHazard(source);
  if (hazard === undefined && !hasUnboundedQuantifier(source)) return { ok: true, pattern: { source, regex, native: true }, re2Size: 0 };
  if (hazard?.startsWith('Backreferences')) return { ok: false, message: hazard };
  const re2Size = estimatedRe2Size(source);
  if (re2Size > MAX_RE2_PROGRAM) {
    return {
      ok: false,
      message: `This pattern repeats without bound, so it is matched by RE2, and it is too large for it (about ${re2Size} instructions, at most ${MAX_RE2_PROGRAM}): lower its repetition counts`,
    };
  }
  try {
    return { ok: true, pattern: { source, regex: RE2JS.compile(toRe2Syntax(source)), native: false }, re2Size };
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

/**
 * About how many instructions RE2 compiles `source` to: one per atom, alternatives added up, a
 * counted repetition `{m,n}` as n copies (RE2 expands them), `*` and `+` one loop each. Scanned
 * without compiling, so a pattern too large is refused before it takes any memory.
 */
function estimatedRe2Size(source: string): number {
  const frames: { done: number; alts: number; current: number; last: number }[] = [{ done: 0, alts: 0, current: 0, last: 0 }];
  let frame = frames[0]!;
  const atom = (size: number) => {
    frame.current += size;
    frame.last = size;
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      i = skipEscape(source, i);
      atom(1);
    } else if (c === '[') {
      i = skipClass(source, i);
      atom(1);
    } else if (c === '(') {
      if (source[i + 1] === '?') i = skipGroupPrefix(source, i + 1);
      frame = { done: 0, alts: 0, current: 0, last: 0 };
      frames.push(frame);
    } else if (c === ')' && frames.length > 1) {
      const group = frames.pop()!;
      const size = group.done + group.current + group.alts + 1;
      frame = frames[frames.length - 1]!;
      atom(size);
    } else if (c === '|') {
      frame.done += frame.current;
      frame.alts++;
      frame.current = 0;
      frame.last = 0;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      const q = readQuantifier(source, i);
      if (q === undefined) {
        atom(1);
        continue;
      }
      const copies = q.max === Infinity ? Math.max(q.min, 1) : q.max;
      const size = frame.last * copies + (q.max === Infinity ? 1 : q.max - q.min);
      frame.current += size - frame.last;
      frame.last = size;
      i = source[q.end + 1] === '?' ? q.end + 1 : q.end;
    } else {
      atom(1);
    }
  }
  while (frames.length > 1) {
    const group = frames.pop()!;
    frame = frames[frames.length - 1]!;
    atom(group.done + group.current + group.alts + 1);
  }
  return frame.done + frame.current + frame.alts;
}

interface Group {
  /** The group holds a variable quantifier, directly or in a nested group. */
  variable: boolean;
}

/**
 * Scans a pattern that already compiled in `u` mode; returns why JavaScript's engine must not run
 * it, if so: backreferences (refused outright), or a quantified group that varies (RE2 runs it).
 */
function backtrackingHazard(source: string): string | undefined {
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
