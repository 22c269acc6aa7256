// The 29 filter operators of the spec: what value each takes, and which field types accept it.
// Their SQL per dialect lives in dialect/; their semantics are documented in README.md.
import type { ValueType } from './types.ts';

export const OPERATORS = [
  'eq', 'ne', 'gt', 'gte', 'lt', 'lte',
  'like', 'notLike', 'ilike', 'notILike',
  'in', 'notIn', 'any',
  'isNull', 'isNotNull',
  'between',
  'contains', 'containedBy',
  'arrayHas', 'arrayHasAny', 'arrayHasAll', 'arrayContainedBy',
  'jsonArrayHas', 'jsonArrayHasAny', 'jsonArrayHasAll',
  'startsWith', 'endsWith',
  'true', 'false',
] as const;
export type Operator = (typeof OPERATORS)[number];

/** What the `value` of a predicate must be. */
export type Arity = 'none' | 'scalar' | 'pair' | 'list' | 'json';

export const ARITY: Record<Operator, Arity> = {
  eq: 'scalar', ne: 'scalar', gt: 'scalar', gte: 'scalar', lt: 'scalar', lte: 'scalar',
  like: 'scalar', notLike: 'scalar', ilike: 'scalar', notILike: 'scalar',
  in: 'list', notIn: 'list', any: 'list',
  isNull: 'none', isNotNull: 'none',
  between: 'pair',
  contains: 'json', containedBy: 'json',
  arrayHas: 'scalar', arrayHasAny: 'list', arrayHasAll: 'list', arrayContainedBy: 'list',
  jsonArrayHas: 'scalar', jsonArrayHasAny: 'list', jsonArrayHasAll: 'list',
  startsWith: 'scalar', endsWith: 'scalar',
  true: 'none', false: 'none',
};

const OPERATOR_SET: ReadonlySet<string> = new Set(OPERATORS);
export const isOperator = (op: string): op is Operator => OPERATOR_SET.has(op);

const ORDERED: readonly Operator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'notIn', 'any', 'isNull', 'isNotNull', 'between'];
const STRING: readonly Operator[] = [...ORDERED, 'like', 'notLike', 'ilike', 'notILike', 'startsWith', 'endsWith'];
// The array operators work on JSON documents too (DESIGN §6: arrays and JSON arrays map to JSON
// functions): arrayHas* as their jsonArrayHas* twins, arrayContainedBy on a JSON array.
const JSON_OPS: readonly Operator[] = [
  'isNull', 'isNotNull', 'contains', 'containedBy', 'jsonArrayHas', 'jsonArrayHasAny', 'jsonArrayHasAll',
  'arrayHas', 'arrayHasAny', 'arrayHasAll', 'arrayContainedBy',
];

/** Operators per value type; a field declaration may narrow them further. */
export const OPERATORS_BY_TYPE: Record<ValueType, readonly Operator[]> = {
  uuid: ['eq', 'ne', 'in', 'notIn', 'any', 'isNull', 'isNotNull'],
  string: STRING,
  integer: ORDERED,
  number: ORDERED,
  timestamp: ORDERED,
  date: ORDERED,
  boolean: ['eq', 'ne', 'isNull', 'isNotNull', 'true', 'false'],
  json: JSON_OPS,
  array: ['isNull', 'isNotNull', 'contains', 'containedBy', 'arrayHas', 'arrayHasAny', 'arrayHasAll', 'arrayContainedBy', 'any'],
};

/** A JSON path (`data.toolName`) compares as text and also takes the JSON and boolean operators. */
export const JSON_PATH_OPERATORS: readonly Operator[] = [...STRING, 'true', 'false', ...JSON_OPS.slice(2)];
