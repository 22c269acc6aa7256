// The `fields` parameter: plain field names, and (where the endpoint enables them) advanced
// entries `{field|fn|cast|coalesce|case|raw|value, as}`. Expressions nest to a bounded depth;
// literals are kept as values to be bound, and `raw` strings only name server expressions.
import { CAST_TYPES, type CastType, type Expr, type ProjectionEntry, at, fail, LIMITS } from '../model/index.ts';
import { parseNode } from './filter.ts';
import { listItems } from './lists.ts';
import { type Budget, type Obj, checkString, expectName, isObject, onlyKeys, spendValues } from './shape.ts';

const ALIAS = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const KINDS = ['fn', 'cast', 'coalesce', 'case', 'raw', 'field', 'value'] as const;
type Kind = (typeof KINDS)[number];
const EXTRA: Record<Kind, readonly string[]> = {
  fn: ['args', 'unit', 'path', 'filterType'],
  cast: ['field', 'arg'],
  coalesce: [],
  case: ['else'],
  raw: [],
  field: [],
  value: [],
};

export function parseFields(raw: unknown, pointer: string, budget: Budget): ProjectionEntry[] {
  const items = listItems(raw, pointer, LIMITS.fieldEntries);
  if (items.length === 0) fail(pointer, 'expected at least one field');
  return items.map((item) => parseEntry(item.value, item.at, budget));
}

function parseAlias(value: unknown, pointer: string): string {
  if (typeof value !== 'string' || !ALIAS.test(value) || value.startsWith('__')) {
    fail(pointer, 'expected an alias of letters, digits, _ . - (at most 64, not starting with __)');
  }
  return value;
}

export function parseCastType(value: unknown, pointer: string): CastType {
  const text = typeof value === 'string' ? value.trim().toUpperCase() : '';
  const found = CAST_TYPES.find((t) => t === text);
  if (!found) fail(pointer, `expected one of ${CAST_TYPES.join(', ')}`);
  return found;
}

/** One projection entry. */
function parseEntry(value: unknown, pointer: string, budget: Budget): ProjectionEntry {
  if (typeof value === 'string') {
    const name = expectName(value, pointer, 'a field name');
    return { expr: { kind: 'field', name, at: pointer }, as: name, advanced: false, at: pointer };
  }
  if (!isObject(value)) return fail(pointer, 'expected a field name or an entry object');
  const kind = kindOf(value, pointer);
  onlyKeys(value, [kind, 'as', ...EXTRA[kind]], pointer);
  const expr = parseKind(kind, value, pointer, 1, budget);
  let as: string;
  if (Object.hasOwn(value, 'as')) as = parseAlias(value.as, at(pointer, 'as'));
  else if (expr.kind === 'field') as = expr.name;
  else if (expr.kind === 'cast' && expr.arg.kind === 'field') as = expr.arg.name;
  else return fail(at(pointer, 'as'), 'this entry needs an alias (as)');
  return { expr, as, advanced: kind !== 'field', at: pointer };
}

function kindOf(value: Obj, pointer: string): Kind {
  // `field` is also an extra key of cast, so look at the other kinds first.
  const present = KINDS.filter((k) => Object.hasOwn(value, k));
  const main = present.filter((k) => k !== 'field');
  if (main.length > 1) fail(pointer, `give one of ${KINDS.join(', ')} per entry`);
  const kind = main[0] ?? present[0];
  if (!kind) fail(pointer, `expected one of ${KINDS.join(', ')}`);
  return kind;
}

/** An operand inside an expression: a field name ("*" for count) or a nested entry without `as`. */
function parseOperand(value: unknown, pointer: string, depth: number, budget: Budget): Expr {
  if (depth > LIMITS.exprDepth) fail(pointer, `expressions nest at most ${LIMITS.exprDepth} levels`);
  if (typeof value === 'string') {
    if (value === '*') return { kind: 'star', at: pointer };
    return { kind: 'field', name: expectName(value, pointer, 'a field name'), at: pointer };
  }
  if (!isObject(value)) return fail(pointer, 'expected a field name or an expression object');
  const kind = kindOf(value, pointer);
  onlyKeys(value, [kind, ...EXTRA[kind]], pointer);
  return parseKind(kind, value, pointer, depth, budget);
}

function literal(value: unknown, pointer: string, budget: Budget): Expr {
  if (typeof value === 'string') checkString(value, pointer);
  else if (typeof value === 'number') {
    if (!Number.isFinite(value)) fail(pointer, 'expected a finite number');
  } else if (typeof value !== 'boolean' && value !== null) fail(pointer, 'expected a string, number, boolean or null');
  spendValues(budget, 1, pointer);
  return { kind: 'literal', value: value as string | number | boolean | null, at: pointer };
}

function operands(value: unknown, pointer: string, depth: number, budget: Budget, min: number): Expr[] {
  if (!Array.isArray(value) || value.length < min) fail(pointer, `expected a list of at least ${min} operand${min === 1 ? '' : 's'}`);
  if (value.length > LIMITS.fnArgs) fail(pointer, `at most ${LIMITS.fnArgs} operands`);
  return value.map((v, i) => parseOperand(v, at(pointer, i), depth + 1, budget));
}

function parseKind(kind: Kind, value: Obj, pointer: string, depth: number, budget: Budget): Expr {
  const p = at(pointer, kind);
  switch (kind) {
    case 'field':
      return { kind: 'field', name: expectName(value.field, p, 'a field name'), at: p };
    case 'value':
      return literal(value.value, p, budget);
    case 'raw': {
      const raw = value.raw;
      if (typeof raw === 'string') return { kind: 'raw', name: expectName(raw, p, 'an expression name'), at: p };
      if (isObject(raw)) {
        onlyKeys(raw, ['value'], p);
        return literal(raw.value, at(p, 'value'), budget);
      }
      return literal(raw, p, budget);
    }
    case 'fn': {
      const fn = expectName(value.fn, p, 'a function name');
      const args = Object.hasOwn(value, 'args') ? value.args : [];
      if (!Array.isArray(args)) return fail(at(pointer, 'args'), 'expected a list of operands');
      // date_trunc's unit and jsonExtract's path are options, not fields: accept them as the
      // conventional argument position too (date_trunc('day', x), json_extract(x, 'a.b')).
      let rest: unknown[] = args;
      let option: string | undefined;
      const optionKey = fn === 'date_trunc' ? 'unit' : fn === 'jsonExtract' ? 'path' : undefined;
      const optionIndex = fn === 'date_trunc' ? 0 : 1;
      if (optionKey && Object.hasOwn(value, optionKey)) option = expectName(value[optionKey], at(pointer, optionKey), `a ${optionKey}`);
      else if (optionKey && args.length > optionIndex) {
        const a = args[optionIndex];
        const text = isObject(a) && Object.keys(a).length === 1 && Object.hasOwn(a, 'value') ? a.value : a;
        option = expectName(text, at(at(pointer, 'args'), optionIndex), `a ${optionKey}`);
        rest = args.filter((_, i) => i !== optionIndex);
      }
      const expr: Expr = { kind: 'fn', fn, args: operands(rest, at(pointer, 'args'), depth, budget, 0), at: p };
      if (option !== undefined) expr.option = option;
      if (Object.hasOwn(value, 'filterType')) expr.filterType = expectName(value.filterType, at(pointer, 'filterType'), 'a type');
      return expr;
    }
    case 'cast': {
      const type = parseCastType(value.cast, p);
      const hasField = Object.hasOwn(value, 'field');
      if (hasField === Object.hasOwn(value, 'arg')) fail(pointer, 'a cast entry needs exactly one of field or arg');
      const arg = hasField
        ? ({ kind: 'field', name: expectName(value.field, at(pointer, 'field'), 'a field name'), at: at(pointer, 'field') } as const)
        : parseOperand(value.arg, at(pointer, 'arg'), depth + 1, budget);
      return { kind: 'cast', type, arg, at: p };
    }
    case 'coalesce':
      return { kind: 'coalesce', args: operands(value.coalesce, p, depth, budget, 1), at: p };
    case 'case': {
      const list = value.case;
      if (!Array.isArray(list) || list.length === 0) return fail(p, 'expected a non-empty list of {when, then}');
      if (list.length > LIMITS.caseBranches) fail(p, `at most ${LIMITS.caseBranches} branches`);
      const branches = list.map((branch, i) => {
        const bp = at(p, i);
        if (!isObject(branch)) return fail(bp, 'expected {when, then}');
        onlyKeys(branch, ['when', 'then'], bp);
        if (!Object.hasOwn(branch, 'then')) fail(at(bp, 'then'), 'required');
        return {
          when: parseNode(branch.when, at(bp, 'when'), 1, budget),
          then: parseOperand(branch.then, at(bp, 'then'), depth + 1, budget),
        };
      });
      const expr: Expr = { kind: 'case', branches, at: p };
      if (Object.hasOwn(value, 'else')) expr.otherwise = parseOperand(value.else, at(pointer, 'else'), depth + 1, budget);
      return expr;
    }
  }
}
