// The `cte` parameter: `{name: {from, filter, fields, groupBy, sort, limit}}`, named sub-queries
// in the same structured language. Definition order is the object's key order, so a CTE may
// read from an earlier one.
import { type CteSpec, at, fail, LIMITS } from '../model/index.ts';
import { parseFilter } from './filter.ts';
import { CLIENT_ALIAS } from './joins.ts';
import { looksLikeJson, parseJson } from './json.ts';
import { parseNames, parseSort } from './lists.ts';
import { parseFields } from './projection.ts';
import { parseInteger } from './scalars.ts';
import { type Budget, expectName, expectObject, isObject, onlyKeys } from './shape.ts';

export function parseCte(raw: unknown, pointer: string, budget: Budget): CteSpec[] {
  let value = raw;
  if (typeof value === 'string') {
    if (!looksLikeJson(value)) fail(pointer, 'expected a JSON object or bracket-style cte[name][...] parameters');
    value = parseJson(value, pointer);
  }
  if (!isObject(value)) return fail(pointer, 'expected an object {name: {from, filter, fields, groupBy, sort, limit}}');
  const entries = Object.entries(value);
  if (entries.length === 0) fail(pointer, 'expected at least one CTE');
  if (entries.length > LIMITS.ctes) fail(pointer, `at most ${LIMITS.ctes} CTEs`);
  return entries.map(([name, body]) => parseOne(name, body, at(pointer, name), budget));
}

function parseOne(name: string, body: unknown, pointer: string, budget: Budget): CteSpec {
  if (!CLIENT_ALIAS.test(name)) fail(pointer, 'a CTE name is a letter followed by letters, digits or _ (at most 32)');
  const obj = expectObject(body, pointer, 'a CTE {from, filter, fields, groupBy, sort, limit}');
  onlyKeys(obj, ['from', 'filter', 'fields', 'groupBy', 'sort', 'limit'], pointer);
  const spec: CteSpec = { name, from: expectName(obj.from, at(pointer, 'from'), 'a table or CTE name'), at: pointer };
  if (obj.filter !== undefined) spec.filter = parseFilter(obj.filter, at(pointer, 'filter'), budget);
  if (obj.fields !== undefined) spec.fields = parseFields(obj.fields, at(pointer, 'fields'), budget);
  if (obj.groupBy !== undefined) spec.groupBy = parseNames(obj.groupBy, at(pointer, 'groupBy'), LIMITS.groupByEntries);
  if (obj.sort !== undefined) spec.sort = parseSort(obj.sort, at(pointer, 'sort'), LIMITS.sortEntries);
  if (obj.limit !== undefined) {
    const limit = typeof obj.limit === 'number' ? String(obj.limit) : obj.limit;
    spec.limit = parseInteger(limit, at(pointer, 'limit'), 0, LIMITS.limitMax);
  }
  return spec;
}
