// Projection expressions: field references, bound literals, allowlisted functions and
// aggregates, casts, coalesce, case (conditions in the filter language) and server-defined
// expressions named by `raw`. Each compiles to SQL plus the logical type of its result.
import { type SQL, sql } from 'drizzle-orm';
import { type Expr, at, fail, LIMITS, AGGREGATE_FNS, type AggregateFn, SCALAR_FNS, type ScalarFn, type ValueType } from '../model/index.ts';
import { TRUNC_UNITS, type TruncUnit } from '../dialect/index.ts';
import { FILTER_TYPES } from './cast.ts';
import { compileFilter } from './filter.ts';
import { castOperand, type Scope } from './scope.ts';
import { coerce } from './values.ts';

export interface Typed {
  sql: SQL;
  type: ValueType;
  nullable: boolean;
  /** Contains an aggregate function. */
  aggregate: boolean;
  /** JSON face, when the value is JSON (for jsonExtract and JSON casts). */
  json?: SQL;
  /** JSON paths: the value as a number when it is a JSON number (see Operand.number). */
  number?: SQL;
}

const SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;
const ORDERABLE: readonly ValueType[] = ['string', 'integer', 'number', 'timestamp', 'date'];

const isAggregate = (fn: string): fn is AggregateFn => (AGGREGATE_FNS as readonly string[]).includes(fn);
const isScalarFn = (fn: string): fn is ScalarFn => (SCALAR_FNS as readonly string[]).includes(fn);

/** The common type of several operands (integer and number mix as number), or a violation. */
function unify(types: ValueType[], pointer: string): ValueType {
  const first = types[0] ?? 'string';
  if (types.every((t) => t === first)) return first;
  if (types.every((t) => t === 'integer' || t === 'number')) return 'number';
  return fail(pointer, `operands have different types (${[...new Set(types)].join(', ')})`);
}

/** Compiles operands where literals take the type of the others. */
function compileUnified(scope: Scope, exprs: Expr[], pointer: string, inAggregate: boolean): { parts: SQL[]; type: ValueType; aggregate: boolean } {
  const typed = exprs.map((e) => (e.kind === 'literal' ? undefined : compileExpr(scope, e, inAggregate)));
  const known = typed.filter((t): t is Typed => t !== undefined);
  const type = known.length > 0 ? unify(known.map((t) => t.type), pointer) : literalType(exprs[0]);
  const parts = exprs.map((e, i) => {
    const t = typed[i];
    if (t) return t.type === type ? t.sql : (scope.ctx.dialect.cast(t.sql, t.type, type) ?? t.sql);
    return literalSql(scope, e, type);
  });
  return { parts, type, aggregate: known.some((t) => t.aggregate) };
}

function literalType(e: Expr | undefined): ValueType {
  if (e?.kind !== 'literal') return 'string';
  if (typeof e.value === 'number') return Number.isInteger(e.value) ? 'integer' : 'number';
  if (typeof e.value === 'boolean') return 'boolean';
  return 'string';
}

function literalSql(scope: Scope, e: Expr, type: ValueType): SQL {
  if (e.kind !== 'literal') throw new Error('not a literal');
  const { dialect } = scope.ctx;
  if (e.value === null) return dialect.name === 'postgres' ? sql`CAST(NULL AS ${nullType(type)})` : sql`NULL`;
  if (type === 'json' || type === 'array') return dialect.bindJson(e.value);
  return dialect.bind(type, coerce(type, e.value, e.at));
}

function nullType(type: ValueType): SQL {
  const names: Record<ValueType, SQL> = {
    uuid: sql`uuid`, string: sql`text`, integer: sql`bigint`, number: sql`double precision`, boolean: sql`boolean`,
    timestamp: sql`timestamptz`, date: sql`date`, json: sql`jsonb`, array: sql`jsonb`,
  };
  return names[type];
}

export function compileExpr(scope: Scope, e: Expr, inAggregate = false): Typed {
  const { ctx } = scope;
  switch (e.kind) {
    case 'field': {
      const op = scope.resolve(e.name, e.at);
      const typed: Typed = { sql: op.sql, type: op.type, nullable: op.nullable, aggregate: false };
      if (op.json) typed.json = op.json;
      if (op.number) typed.number = op.number;
      return typed;
    }
    case 'star':
      return fail(e.at, '"*" is only an argument of count');
    case 'literal': {
      const type = literalType(e);
      return { sql: literalSql(scope, e, type), type, nullable: e.value === null, aggregate: false };
    }
    case 'raw': {
      const def = Object.hasOwn(ctx.resource.expressions ?? {}, e.name) ? ctx.resource.expressions?.[e.name] : undefined;
      if (!def) return fail(e.at, `unknown expression '${e.name.slice(0, 64)}'`);
      const trusted = scope.trusted();
      const built = def.build((name) => trusted.resolve(name, e.at).sql, ctx.dialect.name);
      return { sql: sql`(${built})`, type: def.type, nullable: true, aggregate: false };
    }
    case 'cast': {
      const inner = compileExpr(scope, e.arg, inAggregate);
      const operand = castOperand(ctx, {
        sql: inner.sql, type: inner.type, nullable: inner.nullable, jsonPath: false, sortable: true, ops: [],
        output: inner.sql, outputType: inner.type, ...(inner.json ? { json: inner.json } : {}),
      }, e.type, e.at);
      return { sql: operand.sql, type: operand.type, nullable: true, aggregate: inner.aggregate };
    }
    case 'coalesce': {
      const { parts, type, aggregate } = compileUnified(scope, e.args, e.at, inAggregate);
      return { sql: coalesce(parts), type, nullable: true, aggregate };
    }
    case 'case': {
      const results = [...e.branches.map((b) => b.then), ...(e.otherwise ? [e.otherwise] : [])];
      const { parts, type, aggregate } = compileUnified(scope, results, e.at, inAggregate);
      const whens = e.branches.map((b, i) => sql` WHEN ${compileFilter(scope, b.when)} THEN ${parts[i]}`);
      const otherwise = e.otherwise ? sql` ELSE ${parts[parts.length - 1]}` : sql``;
      return { sql: sql`(CASE${sql.join(whens, sql``)}${otherwise} END)`, type, nullable: true, aggregate };
    }
    case 'fn': {
      const result = compileFn(scope, e, inAggregate);
      if (e.filterType === undefined) return result;
      const to = Object.hasOwn(FILTER_TYPES, e.filterType) ? FILTER_TYPES[e.filterType] : undefined;
      if (!to) return fail(at(e.at.replace(/\/fn$/, ''), 'filterType'), `expected one of ${Object.keys(FILTER_TYPES).join(', ')}`);
      const converted = to === result.type ? result.sql : ctx.dialect.cast(result.sql, result.type, to);
      if (!converted) return fail(e.at, `a ${result.type} result cannot be converted to ${e.filterType}`);
      return { ...result, sql: converted, type: to };
    }
  }
}

function arity(e: Extract<Expr, { kind: 'fn' }>, n: number): void {
  if (e.args.length !== n) fail(e.at, `${e.fn} takes ${n} argument${n === 1 ? '' : 's'}`);
}

/**
 * min/max of a JSON path, in the order its sort uses (numbers first, numerically, then the other
 * values by text): the least number if there is one, else the least text; the greatest non-number
 * text if there is one, else the greatest number. A JSON value, so a number stays a number.
 */
function jsonPathExtreme(dialect: Scope['ctx']['dialect'], fn: 'min' | 'max', num: SQL, text: SQL): Typed {
  const other = sql`(CASE WHEN ${num} IS NULL THEN ${text} END)`;
  const value =
    fn === 'min'
      ? sql`(CASE WHEN COUNT(${num}) > 0 THEN ${dialect.toJson(sql`MIN(${num})`, 'number')} ELSE ${dialect.toJson(sql`MIN(${text})`, 'string')} END)`
      : sql`(CASE WHEN COUNT(${other}) > 0 THEN ${dialect.toJson(sql`MAX(${other})`, 'string')} ELSE ${dialect.toJson(sql`MAX(${num})`, 'number')} END)`;
  return { sql: value, type: 'json', nullable: true, aggregate: true };
}

function compileFn(scope: Scope, e: Extract<Expr, { kind: 'fn' }>, inAggregate: boolean): Typed {
  const { ctx } = scope;
  const { dialect, resource } = ctx;
  const fn = e.fn;
  if (isAggregate(fn)) {
    if (resource.features?.groupBy !== true || !(resource.aggregates ?? []).includes(fn)) return fail(e.at, `aggregate '${fn}' is not available on this endpoint`);
    if (inAggregate) return fail(e.at, 'aggregates cannot be nested');
    if (fn === 'count') {
      if (e.args.length === 0 || (e.args.length === 1 && e.args[0]?.kind === 'star')) return { sql: sql`COUNT(*)`, type: 'integer', nullable: false, aggregate: true };
      arity(e, 1);
    } else arity(e, 1);
    const [argExpr] = e.args;
    if (!argExpr) return fail(e.at, `${fn} takes 1 argument`);
    const arg = compileExpr(scope, argExpr, true);
    if (fn === 'count') return { sql: sql`COUNT(${arg.sql})`, type: 'integer', nullable: false, aggregate: true };
    if ((fn === 'min' || fn === 'max') && arg.number) return jsonPathExtreme(dialect, fn, arg.number, arg.sql);
    if (fn === 'min' || fn === 'max') {
      if (!ORDERABLE.includes(arg.type)) return fail(e.at, `${fn} does not apply to ${arg.type}`);
      return { sql: fn === 'min' ? sql`MIN(${arg.sql})` : sql`MAX(${arg.sql})`, type: arg.type, nullable: true, aggregate: true };
    }
    if (arg.type !== 'integer' && arg.type !== 'number') return fail(e.at, `${fn} takes a number`);
    if (fn === 'sum') return { sql: sql`SUM(${arg.sql})`, type: arg.type, nullable: true, aggregate: true };
    return { sql: sql`AVG(${arg.sql})`, type: 'number', nullable: true, aggregate: true };
  }
  if (!isScalarFn(fn) || !(resource.functions ?? SCALAR_FNS).includes(fn)) return fail(e.at, `function '${fn.slice(0, 64)}' is not available`);
  if (fn === 'coalesce') {
    if (e.args.length === 0) return fail(e.at, 'coalesce takes at least one argument');
    const { parts, type, aggregate } = compileUnified(scope, e.args, e.at, inAggregate);
    return { sql: coalesce(parts), type, nullable: true, aggregate };
  }
  arity(e, 1);
  const [argExpr] = e.args;
  if (!argExpr) return fail(e.at, `${fn} takes 1 argument`);
  const arg = compileExpr(scope, argExpr, inAggregate);
  const base = { nullable: arg.nullable, aggregate: arg.aggregate };
  switch (fn) {
    case 'lower':
    case 'upper':
    case 'length': {
      if (arg.type !== 'string') return fail(e.at, `${fn} takes a string`);
      if (fn === 'length') return { ...base, sql: sql`length(${arg.sql})`, type: 'integer' };
      return { ...base, sql: fn === 'lower' ? sql`lower(${arg.sql})` : sql`upper(${arg.sql})`, type: 'string' };
    }
    case 'date_trunc': {
      const unit = TRUNC_UNITS.find((u) => u === e.option);
      if (!unit) return fail(e.at, `date_trunc takes a unit: ${TRUNC_UNITS.join(', ')}`);
      if (arg.type !== 'timestamp') return fail(e.at, 'date_trunc takes a timestamp');
      return { ...base, sql: dialect.dateTrunc(unit as TruncUnit, arg.sql), type: 'timestamp' };
    }
    case 'jsonExtract': {
      if (!arg.json) return fail(e.at, 'jsonExtract takes a JSON field');
      const path = (e.option ?? '').split('.');
      if (path.length > LIMITS.jsonPathSegments || !path.every((s) => SEGMENT.test(s))) {
        return fail(e.at, 'jsonExtract takes a path of letters, digits, _ or - segments separated by dots');
      }
      const value = dialect.jsonValue(arg.json, path);
      return { ...base, sql: value, type: 'json', nullable: true, json: value };
    }
  }
}

/** COALESCE of the parts; of one part, that part (SQLite's COALESCE wants two arguments or more). */
function coalesce(parts: SQL[]): SQL {
  return parts.length === 1 ? sql`(${parts[0]!})` : sql`COALESCE(${sql.join(parts, sql`, `)})`;
}
