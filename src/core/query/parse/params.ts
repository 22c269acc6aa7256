// Splits a query string into the list engine's parameters. Bracket-style parameters go through
// qs with explicit limits (throwing instead of silently truncating); a parameter given both
// plain and bracket-style is refused rather than merged in some surprising way.
import qs from 'qs';
import { at, fail, LIMITS } from '../model/index.ts';

const PARAMS = [
  'offset', 'limit', 'count', 'filter', 'sort', 'distinct', 'fields',
  'joins', 'groupBy', 'cast', 'cte', 'debug',
] as const;
export type ParamName = (typeof PARAMS)[number];
const PARAM_SET: ReadonlySet<string> = new Set(PARAMS);

const QS_OPTIONS: qs.IParseOptions = {
  depth: LIMITS.bracketDepth,
  strictDepth: true,
  arrayLimit: LIMITS.listValues,
  parameterLimit: LIMITS.parameters,
  throwOnLimitExceeded: true,
  allowPrototypes: false,
  plainObjects: true,
  allowDots: false,
  comma: false,
  parseArrays: true,
  allowSparse: false,
  allowEmptyArrays: false,
  duplicates: 'combine',
  charset: 'utf-8',
  charsetSentinel: false,
  interpretNumericEntities: false,
  strictNullHandling: false,
  ignoreQueryPrefix: true,
};

function decode(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** The engine's parameters, each as qs produced it: string, array or (null-prototype) object. */
export function readParams(search: URLSearchParams | string): Map<ParamName, unknown> {
  const text = (typeof search === 'string' ? search : search.toString()).replace(/^\?/, '');
  if (text.length > LIMITS.queryLength) fail('/query', `the query string is longer than ${LIMITS.queryLength} characters`);

  const parts = new Map<ParamName, { plain: boolean; bracket: boolean; pieces: string[] }>();
  for (const part of text.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = decode(eq === -1 ? part : part.slice(0, eq));
    const bracket = key.indexOf('[');
    const name = bracket === -1 ? key : key.slice(0, bracket);
    if (!PARAM_SET.has(name)) continue; // other parameters belong to the route
    const param = name as ParamName;
    let entry = parts.get(param);
    if (!entry) parts.set(param, (entry = { plain: false, bracket: false, pieces: [] }));
    if (bracket === -1) entry.plain = true;
    else entry.bracket = true;
    entry.pieces.push(part);
  }

  const out = new Map<ParamName, unknown>();
  for (const [name, entry] of parts) {
    const pointer = at('/query', name);
    if (entry.plain && entry.bracket) fail(pointer, `${name} is given both as a plain value and bracket-style; use one encoding`);
    if (entry.plain) {
      // Plain parameters need no bracket parsing: decode them as qs would (repeats combine into
      // a list, under the same limits).
      if (entry.pieces.length > LIMITS.parameters) fail(pointer, `${name} exceeds a limit: too many parameters`);
      if (entry.pieces.length > LIMITS.listValues) fail(pointer, `${name} exceeds a limit: more than ${LIMITS.listValues} values`);
      const values = entry.pieces.map((piece) => {
        const eq = piece.indexOf('=');
        return eq === -1 ? '' : decode(piece.slice(eq + 1));
      });
      out.set(name, values.length === 1 ? values[0] : values);
      continue;
    }
    let parsed: Record<string, unknown>;
    try {
      parsed = qs.parse(entry.pieces.join('&'), QS_OPTIONS) as Record<string, unknown>;
    } catch (error) {
      // qs throws RangeError for parameterLimit, arrayLimit and depth: all client-controlled sizes.
      fail(pointer, `${name} exceeds a limit: ${limitReason(error)}`);
    }
    if (Object.hasOwn(parsed, name)) out.set(name, parsed[name]);
  }
  return out;
}

/** qs's limit errors in the list engine's own words (the limits of src/core/query/model/limits.ts). */
function limitReason(error: unknown): string {
  if (!(error instanceof RangeError)) return 'it cannot be parsed';
  if (/array limit/i.test(error.message)) return `a list holds more than ${LIMITS.listValues} values`;
  if (/parameter limit/i.test(error.message)) return `more than ${LIMITS.parameters} parameters`;
  if (/depth/i.test(error.message)) return `nested deeper than ${LIMITS.bracketDepth} levels`;
  return error.message;
}
