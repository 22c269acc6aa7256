// The `joins` parameter: `[{table, alias, type, on: {left, op, right}}]` as JSON or brackets.
// Table and field names are resolved against the endpoint's allowlist at compile; the alias is
// only a client-side name (the SQL uses generated aliases).
import { type JoinOp, type JoinSpec, at, fail, LIMITS } from '../model/index.ts';
import { looksLikeJson, parseJson } from './json.ts';
import { expectName, expectObject, isObject, onlyKeys } from './shape.ts';

const JOIN_OPS: readonly JoinOp[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte'];
export const CLIENT_ALIAS = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;

export function parseJoins(raw: unknown, pointer: string): JoinSpec[] {
  let value = raw;
  if (typeof value === 'string') {
    if (!looksLikeJson(value)) fail(pointer, 'expected a JSON array or bracket-style joins[0][...] parameters');
    value = parseJson(value, pointer);
  }
  const list = Array.isArray(value) ? value : isObject(value) ? [value] : fail(pointer, 'expected a list of joins');
  if (list.length > LIMITS.joins) fail(pointer, `at most ${LIMITS.joins} joins`);
  return list.map((item, i) => parseJoin(item, Array.isArray(value) ? at(pointer, i) : pointer));
}

function parseJoin(value: unknown, pointer: string): JoinSpec {
  const obj = expectObject(value, pointer, 'a join {table, alias, type, on}');
  onlyKeys(obj, ['table', 'alias', 'type', 'on'], pointer);
  const table = expectName(obj.table, at(pointer, 'table'), 'a table name');
  const alias = expectName(obj.alias, at(pointer, 'alias'), 'an alias');
  if (!CLIENT_ALIAS.test(alias)) fail(at(pointer, 'alias'), 'an alias is a letter followed by letters, digits or _ (at most 32)');
  const typeText = obj.type === undefined ? 'left' : typeof obj.type === 'string' ? obj.type.toLowerCase() : '';
  if (typeText !== 'left' && typeText !== 'inner') fail(at(pointer, 'type'), 'expected left or inner');
  const onPointer = at(pointer, 'on');
  const on = expectObject(obj.on, onPointer, 'a condition {left, op, right}');
  onlyKeys(on, ['left', 'op', 'right'], onPointer);
  const opText = on.op === undefined ? 'eq' : on.op;
  const op = JOIN_OPS.find((o) => o === opText);
  if (!op) fail(at(onPointer, 'op'), `expected one of ${JOIN_OPS.join(', ')}`);
  return {
    table,
    alias,
    type: typeText,
    on: { left: expectName(on.left, at(onPointer, 'left'), 'a field name'), op, right: expectName(on.right, at(onPointer, 'right'), 'a field name') },
    at: pointer,
  };
}
