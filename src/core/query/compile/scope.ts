// Name resolution: a client field name → a server-defined SQL expression. Names are looked up
// in the allowlist (table fields, relations, JSON paths, join aliases, CTE columns) and never
// interpolated; JSON path segments are bound as values.
import { type SQL, sql } from 'drizzle-orm';
import {
  type CastType,
  fail,
  LIMITS,
  JSON_PATH_OPERATORS,
  OPERATORS_BY_TYPE,
  type Operator,
  type Alias,
  type TableDef,
  aliasPath,
  type ScalarType,
  type ValueType,
  isScalarType,
} from '../model/index.ts';
import { CAST_TARGET } from './cast.ts';
import type { Ctx, Source } from './context.ts';
import { compileFilter } from './filter.ts';

/** A resolved field. */
export interface Operand {
  /** Expression to compare, sort and group by. */
  sql: SQL;
  type: ValueType;
  nullable: boolean;
  /** JSON face (json/array columns, JSON paths): what JSON operators work on. */
  json?: SQL;
  /** JSON paths: the value as a number when it is a JSON number (numeric comparisons and sorts). */
  number?: SQL;
  jsonPath: boolean;
  items?: ScalarType;
  sortable: boolean;
  ops: readonly Operator[];
  /** What a plain projection of the field selects (a JSON path selects its JSON value). */
  output: SQL;
  outputType: ValueType;
}

const SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;

const columns = new Map<string, SQL>();

/** `"alias"."column"`; cached, since both parts are generated or server-defined and few. */
function column(alias: string, name: string): SQL {
  const key = `${alias}\u0000${name}`;
  let ref = columns.get(key);
  if (!ref) {
    ref = sql`${sql.identifier(alias)}.${sql.identifier(name)}`;
    if (columns.size < 10_000) columns.set(key, ref);
  }
  return ref;
}

interface ColumnDef {
  column: string;
  type: ValueType;
  nullable?: boolean;
  ops?: readonly Operator[];
  sortable?: boolean;
  items?: ScalarType;
}

function fieldOperand(alias: string, def: ColumnDef): Operand {
  const col = column(alias, def.column);
  const scalar = isScalarType(def.type);
  const op: Operand = {
    sql: col,
    type: def.type,
    nullable: def.nullable === true,
    jsonPath: false,
    sortable: def.sortable ?? scalar,
    ops: def.ops ?? OPERATORS_BY_TYPE[def.type],
    output: col,
    outputType: def.type,
  };
  if (!scalar) op.json = col;
  if (def.items) op.items = def.items;
  else if (def.type === 'array') op.items = 'string';
  return op;
}

/** A computed field of a table (TableDef.computed): its server-defined expression over the row's columns. */
function computedOperand(alias: string, table: TableDef, def: NonNullable<TableDef['computed']>[string]): Operand {
  const expr = def.build((field) => {
    const target = table.fields[field];
    if (!target) throw new Error(`${table.name}: computed field uses unknown field '${field}'`);
    return column(alias, target.column);
  });
  return { sql: expr, type: def.type, nullable: def.nullable === true, jsonPath: false, sortable: true, ops: OPERATORS_BY_TYPE[def.type], output: expr, outputType: def.type };
}

export interface ScopeOptions {
  /** Trusted scopes (server predicates and expressions) may use hidden fields. */
  trusted: boolean;
  /** The request's `cast` map, applied to fields wherever they are used (main query only). */
  cast?: ReadonlyMap<string, { type: CastType; at: string }>;
}

/** The names visible in one SELECT: its source, explicit joins and implicit relation joins. */
export class Scope {
  readonly ctx: Ctx;
  readonly base: Source;
  readonly options: ScopeOptions;
  /** Explicit joins by client alias. */
  readonly joins = new Map<string, Source>();
  /** Relation joins added on first use, rendered before the explicit joins. */
  readonly relationJoins: SQL[];
  private readonly relations: Map<string, string>;

  constructor(ctx: Ctx, base: Source, options: ScopeOptions, shared?: Scope) {
    this.ctx = ctx;
    this.base = base;
    this.options = options;
    this.relationJoins = shared ? shared.relationJoins : [];
    this.relations = shared ? shared.relations : new Map();
  }

  /**
   * A trusted twin over the same source, for server predicates and expressions: it sees hidden
   * fields, ignores the client's casts, and adds relation joins to this scope's query.
   */
  trusted(): Scope {
    return new Scope(this.ctx, this.base, { trusted: true }, this);
  }

  /** Resolves a name, applying the request's cast for it. */
  resolve(name: string, pointer: string): Operand {
    const operand = this.resolveRaw(name, pointer);
    const cast = this.options.cast?.get(name);
    return cast ? castOperand(this.ctx, operand, cast.type, cast.at) : operand;
  }

  private resolveRaw(name: string, pointer: string): Operand {
    const own = this.inSource(this.base, name, pointer);
    if (own) return own;
    const aliased = this.base.kind === 'table' ? this.throughAlias(this.base, name, pointer) : undefined;
    if (aliased) return aliased;
    const dot = name.indexOf('.');
    if (dot > 0) {
      const prefix = name.slice(0, dot);
      const rest = name.slice(dot + 1);
      const joined = this.joins.get(prefix);
      if (joined) {
        const found = this.inSource(joined, rest, pointer);
        if (found) return found;
      }
      if (this.base.kind === 'table') {
        const relations = this.base.table.relations ?? {};
        const relation = Object.hasOwn(relations, prefix) ? relations[prefix] : undefined;
        if (relation && relation.fields.includes(rest)) {
          const def = relation.table.fields[rest];
          if (def && (!def.hidden || this.options.trusted)) {
            return { ...fieldOperand(this.relationAlias(prefix), def), nullable: true };
          }
        }
      }
    }
    return fail(pointer, `unknown field '${name.length > 64 ? `${name.slice(0, 64)}…` : name}'`);
  }

  /** An alias of the table (a field the record carries inside a JSON column), or a JSON path into an untyped one. */
  private throughAlias(source: Source & { kind: 'table' }, name: string, pointer: string): Operand | undefined {
    const aliases = source.table.aliases;
    if (!aliases) return undefined;
    const own = (key: string): Alias | undefined => (Object.hasOwn(aliases, key) ? aliases[key] : undefined);
    const exact = own(name);
    if (exact !== undefined) return typeof exact === 'string' ? this.inSource(source, exact, pointer) : this.typedPath(source, exact);
    const dot = name.indexOf('.');
    const head = dot > 0 ? own(name.slice(0, dot)) : undefined;
    // Only an untyped alias stands for a document to reach into; a typed one is a scalar.
    return typeof head === 'string' ? this.inSource(source, `${head}.${name.slice(dot + 1)}`, pointer) : undefined;
  }

  /** A typed alias: the JSON value at its path, compared, sorted and projected as its type. */
  private typedPath(source: Source & { kind: 'table' }, alias: Exclude<Alias, string>): Operand {
    const [head, ...path] = aliasPath(alias).split('.');
    const col = column(source.alias, source.table.fields[head!]!.column);
    const { dialect } = this.ctx;
    const expr = alias.type === 'integer' ? dialect.jsonNumber(col, path) : alias.type === 'boolean' ? dialect.jsonBoolean(col, path) : dialect.jsonText(col, path);
    return { sql: expr, type: alias.type, nullable: true, jsonPath: false, sortable: true, ops: OPERATORS_BY_TYPE[alias.type], output: expr, outputType: alias.type };
  }

  /** A field of one source, a JSON path into one of its json fields, or a CTE column. */
  private inSource(source: Source, name: string, pointer: string): Operand | undefined {
    if (source.kind === 'cte') {
      const col = source.cte.columns.find((c) => c.key === name);
      if (!col) return undefined;
      return fieldOperand(source.alias, { column: col.name, type: col.type, nullable: col.nullable, ...(col.items ? { items: col.items } : {}) });
    }
    const def = Object.hasOwn(source.table.fields, name) ? source.table.fields[name] : undefined;
    if (def && (!def.hidden || this.options.trusted)) return fieldOperand(source.alias, def);
    const computed = source.table.computed;
    if (computed && Object.hasOwn(computed, name)) return computedOperand(source.alias, source.table, computed[name]!);
    const dot = name.indexOf('.');
    if (dot <= 0) return undefined;
    const head = name.slice(0, dot);
    const doc = Object.hasOwn(source.table.fields, head) ? source.table.fields[head] : undefined;
    if (!doc || !doc.jsonPaths || (doc.hidden && !this.options.trusted)) return undefined;
    const path = name.slice(dot + 1).split('.');
    if (path.length > LIMITS.jsonPathSegments) fail(pointer, `a JSON path has at most ${LIMITS.jsonPathSegments} segments`);
    if (!path.every((s) => SEGMENT.test(s))) fail(pointer, 'JSON path segments are letters, digits, _ or - (at most 64 each)');
    const col = column(source.alias, doc.column);
    const { dialect } = this.ctx;
    const value = dialect.jsonValue(col, path);
    return {
      sql: dialect.jsonText(col, path),
      type: 'string',
      nullable: true,
      json: value,
      number: dialect.jsonNumber(col, path),
      jsonPath: true,
      sortable: true,
      ops: JSON_PATH_OPERATORS,
      output: value,
      outputType: 'json',
    };
  }

  private relationAlias(name: string): string {
    const existing = this.relations.get(name);
    if (existing) return existing;
    if (this.base.kind !== 'table') throw new Error('relations exist on table sources only');
    const relation = this.base.table.relations?.[name];
    const from = relation ? this.base.table.fields[relation.from] : undefined;
    const to = relation ? relation.table.fields[relation.to] : undefined;
    if (!relation || !from || !to) throw new Error(`relation ${name} is not defined`);
    const alias = this.ctx.alias();
    this.relations.set(name, alias);
    let on = sql`${column(alias, to.column)} = ${column(this.base.alias, from.column)}`;
    const scope = tableScope(this.ctx, relation.table, alias);
    if (scope) on = sql`${on} AND ${scope}`;
    this.relationJoins.push(sql` LEFT JOIN ${sql.identifier(relation.table.name)} AS ${sql.identifier(alias)} ON ${on}`);
    return alias;
  }
}

/** Applies a cast to an operand (compile/cast.ts maps the types per dialect). */
export function castOperand(ctx: Ctx, operand: Operand, type: CastType, pointer: string): Operand {
  const to = CAST_TARGET[type];
  if (to === 'json' && operand.json) {
    return { ...operand, sql: operand.json, type: 'json', jsonPath: false, sortable: false, ops: OPERATORS_BY_TYPE.json, output: operand.json, outputType: 'json' };
  }
  const expr = ctx.dialect.cast(operand.sql, operand.type, to);
  if (!expr) return fail(pointer, `a ${operand.type} cannot be cast to ${type}`);
  const out: Operand = {
    sql: expr,
    type: to,
    nullable: true,
    jsonPath: false,
    sortable: isScalarType(to),
    ops: OPERATORS_BY_TYPE[to],
    output: expr,
    outputType: to,
  };
  if (to === 'json') out.json = expr;
  return out;
}

/** The trusted predicate for `table` under `alias`, when the route gave one. */
export function tableScope(ctx: Ctx, table: TableDef, alias: string): SQL | undefined {
  const node = ctx.tableScopes.get(table.name);
  if (!node || node === 'all') return undefined;
  const scope = new Scope(ctx, { kind: 'table', alias, table }, { trusted: true });
  const predicate = compileFilter(scope, node);
  // A joined table's scope sits in its ON clause, where there is no room for further joins.
  if (scope.relationJoins.length > 0) throw new Error(`the scope of ${table.name} must use its own fields only`);
  return predicate;
}
