// The filter tree: `{and: [...]}`, `{or: [...]}`, `{not: node}` and predicates
// `{field, op, value}`, from JSON or from qs brackets (which yield the same shapes, with string
// leaves). Checks shape, value arity and the size limits; types are checked at compile.
import { type FilterNode, at, fail, LIMITS, ARITY, isOperator } from '../model/index.ts';
import { looksLikeJson, parseJson } from './json.ts';
import { type Budget, checkJsonValue, checkString, clip, expectName, isObject, onlyKeys, spendValues } from './shape.ts';

/** Parses a whole filter parameter (JSON string or bracket object). */
export function parseFilter(raw: unknown, pointer: string, budget: Budget): FilterNode {
  // `filter=…&filter=…` (two trees): one filter per request; combine them with {and: [...]}.
  if (Array.isArray(raw) && raw.length > 1 && raw.every((item) => typeof item === 'string')) {
    fail(pointer, 'given more than once; combine the trees in one filter with {"and": [...]}');
  }
  let value = raw;
  if (typeof value === 'string') {
    if (!looksLikeJson(value)) fail(pointer, 'expected a JSON object or bracket-style filter[...] parameters');
    value = parseJson(value, pointer);
  }
  return parseNode(value, pointer, 1, budget, typeof raw !== 'string');
}

/** Parses one node at `depth` (the root is depth 1); `bracket` marks values that came bracket-style (strings). */
export function parseNode(value: unknown, pointer: string, depth: number, budget: Budget, bracket = false): FilterNode {
  if (depth > LIMITS.depth) fail(pointer, `the filter is nested deeper than ${LIMITS.depth} levels`);
  if (!isObject(value)) fail(pointer, 'expected a group ({and|or: [...]}, {not: ...}) or a predicate ({field, op, value})');
  for (const kind of ['and', 'or'] as const) {
    if (!Object.hasOwn(value, kind)) continue;
    onlyKeys(value, [kind], pointer);
    const list = value[kind];
    const p = at(pointer, kind);
    if (!Array.isArray(list)) fail(p, 'expected a list of nodes');
    if (list.length === 0) fail(p, 'a group needs at least one node');
    return { kind, nodes: list.map((node, i) => parseNode(node, at(p, i), depth + 1, budget, bracket)), at: pointer };
  }
  if (Object.hasOwn(value, 'not')) {
    onlyKeys(value, ['not'], pointer);
    return { kind: 'not', node: parseNode(value.not, at(pointer, 'not'), depth + 1, budget, bracket), at: pointer };
  }
  return parsePredicate(value, pointer, budget, bracket);
}

function parsePredicate(value: Record<string, unknown>, pointer: string, budget: Budget, bracket: boolean): FilterNode {
  onlyKeys(value, ['field', 'op', 'value'], pointer);
  if (++budget.predicates > LIMITS.predicates) fail(pointer, `the query has more than ${LIMITS.predicates} predicates`);
  const field = expectName(value.field, at(pointer, 'field'), 'a field name');
  const opText = value.op;
  if (typeof opText !== 'string' || !isOperator(opText)) {
    return fail(at(pointer, 'op'), typeof opText === 'string' ? `unknown operator '${clip(opText)}'` : 'expected an operator');
  }
  const op = opText;
  const p = at(pointer, 'value');
  const v = value.value;
  switch (ARITY[op]) {
    case 'none':
      if (v !== undefined && v !== null) fail(p, `${op} takes no value`);
      break;
    case 'scalar':
      scalar(v, p, op);
      spendValues(budget, 1, p);
      break;
    case 'pair':
      if (!Array.isArray(v) || v.length !== 2) fail(p, `${op} takes two values [low, high]`);
      v.forEach((item, i) => scalar(item, at(p, i), op));
      spendValues(budget, 2, p);
      break;
    case 'list':
      if (!Array.isArray(v) || v.length === 0) fail(p, `${op} takes a non-empty list`);
      if (v.length > LIMITS.listValues) fail(p, `${op} takes at most ${LIMITS.listValues} values`);
      v.forEach((item, i) => scalar(item, at(p, i), op));
      spendValues(budget, v.length, p);
      break;
    case 'json':
      if (v === undefined) fail(p, `${op} takes a value`);
      checkJsonValue(v, p);
      spendValues(budget, 1, p);
      break;
  }
  return bracket ? { kind: 'pred', field, op, value: v, at: pointer, bracket } : { kind: 'pred', field, op, value: v, at: pointer };
}

function scalar(v: unknown, pointer: string, op: string): void {
  if (typeof v === 'string') checkString(v, pointer);
  else if (typeof v === 'number') {
    if (!Number.isFinite(v)) fail(pointer, 'expected a finite number');
  } else if (typeof v !== 'boolean') fail(pointer, `${op} takes a single string, number or boolean`);
}
