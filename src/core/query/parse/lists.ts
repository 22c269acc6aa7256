// The list-valued parameters (distinct, groupBy, sort) in all their encodings: a JSON array
// string, indexed or repeated parameters, a legacy comma list ("-seq,createdAt"), and for sort
// also the object form ({"seq":"DESC"}) and entry objects ({field, dir}).
import { type NameRef, type SortDirection, type SortEntry, at, fail } from '../model/index.ts';
import { looksLikeJson, parseJson } from './json.ts';
import { expectName, isObject, onlyKeys } from './shape.ts';

/**
 * Flattens any list encoding into items with pointers. Strings are split on commas (the legacy
 * form); anything else (objects from JSON or brackets) is passed through for the caller.
 */
export function listItems(raw: unknown, pointer: string, max: number, allowJsonObject = false): { value: unknown; at: string }[] {
  let value = raw;
  if (typeof value === 'string' && looksLikeJson(value)) {
    value = parseJson(value, pointer);
    if (isObject(value) && !allowJsonObject) fail(pointer, 'expected a JSON array');
    if (isObject(value)) return [{ value, at: pointer }];
    if (!Array.isArray(value)) fail(pointer, 'expected a JSON array');
    return bounded(value.map((v, i) => ({ value: v, at: at(pointer, i) })), pointer, max);
  }
  const out: { value: unknown; at: string }[] = [];
  const pushString = (text: string, p: string) => {
    const pieces = text.split(',');
    if (pieces.length === 1) out.push({ value: text.trim(), at: p });
    else pieces.forEach((piece) => out.push({ value: piece.trim(), at: at(pointer, out.length) }));
  };
  if (typeof value === 'string') pushString(value, at(pointer, 0));
  else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      if (typeof item === 'string') pushString(item, at(pointer, i));
      else out.push({ value: item, at: at(pointer, i) });
    });
  } else if (isObject(value)) {
    if (!allowJsonObject) fail(pointer, 'expected a list (JSON array, indexed or repeated parameters, or a comma list)');
    return [{ value, at: pointer }];
  } else fail(pointer, 'expected a list');
  return bounded(out, pointer, max);
}

function bounded<T>(items: T[], pointer: string, max: number): T[] {
  if (items.length > max) fail(pointer, `at most ${max} entries`);
  return items;
}

/** distinct, groupBy: names of logical fields. */
export function parseNames(raw: unknown, pointer: string, max: number): NameRef[] {
  const names = listItems(raw, pointer, max).map((item) => ({ name: expectName(item.value, item.at, 'a field name'), at: item.at }));
  if (names.length === 0) fail(pointer, 'expected at least one field name');
  return names;
}

function direction(value: unknown, pointer: string): SortDirection {
  const text = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (text === 'asc' || text === 'desc') return text;
  return fail(pointer, 'expected ASC or DESC');
}

function sortString(text: string, pointer: string): SortEntry {
  const desc = text.startsWith('-');
  const name = desc || text.startsWith('+') ? text.slice(1).trim() : text;
  return { name: expectName(name, pointer, 'a sort field'), dir: desc ? 'desc' : 'asc', at: pointer };
}

/** One sort object: `{field, dir|order|direction}` or a map `{seq: "DESC", createdAt: "ASC"}`. */
function sortObject(obj: Record<string, unknown>, pointer: string): SortEntry[] {
  if (Object.hasOwn(obj, 'field')) {
    onlyKeys(obj, ['field', 'dir', 'order', 'direction'], pointer);
    const keys = ['dir', 'order', 'direction'].filter((k) => Object.hasOwn(obj, k));
    if (keys.length > 1) fail(pointer, 'give the direction once');
    const key = keys[0];
    const dir = key === undefined ? 'asc' : direction(obj[key], at(pointer, key));
    return [{ name: expectName(obj.field, at(pointer, 'field'), 'a sort field'), dir, at: pointer }];
  }
  return Object.entries(obj).map(([name, dir]) => ({
    name: expectName(name, pointer, 'a sort field'),
    dir: direction(dir, at(pointer, name)),
    at: at(pointer, name),
  }));
}

export function parseSort(raw: unknown, pointer: string, max: number): SortEntry[] {
  const out: SortEntry[] = [];
  for (const item of listItems(raw, pointer, max, true)) {
    if (typeof item.value === 'string') out.push(sortString(item.value, item.at));
    else if (isObject(item.value)) out.push(...sortObject(item.value, item.at));
    else fail(item.at, 'expected a field name or {field, dir}');
  }
  if (out.length > max) fail(pointer, `at most ${max} entries`);
  if (out.length === 0) fail(pointer, 'expected at least one sort field');
  return out;
}
