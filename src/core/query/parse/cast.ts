// The `cast` parameter: `{key: TYPE}` where key is a logical field or a selected alias.
import { type CastEntry, at, fail, LIMITS } from '../model/index.ts';
import { looksLikeJson, parseJson } from './json.ts';
import { parseCastType } from './projection.ts';
import { expectName, isObject } from './shape.ts';

export function parseCast(raw: unknown, pointer: string): CastEntry[] {
  let value = raw;
  if (typeof value === 'string') {
    if (!looksLikeJson(value)) fail(pointer, 'expected a JSON object or bracket-style cast[field]=TYPE parameters');
    value = parseJson(value, pointer);
  }
  if (!isObject(value)) return fail(pointer, 'expected an object {field: TYPE}');
  const entries = Object.entries(value);
  if (entries.length === 0) fail(pointer, 'expected at least one entry');
  if (entries.length > LIMITS.castEntries) fail(pointer, `at most ${LIMITS.castEntries} entries`);
  return entries.map(([key, type]) => {
    const p = at(pointer, key);
    return { key: expectName(key, p, 'a field or alias'), type: parseCastType(type, p), at: p };
  });
}
