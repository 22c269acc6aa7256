// How an endpoint declares what its list may touch: tables, logical fields, relations, and the
// dynamic features it enables. These are the only source of identifiers in the SQL the engine
// builds; they are checked once when the module loads (`defineTable`, `defineResource`).
import type { SQL } from 'drizzle-orm';
import type { SortDirection } from './ast.ts';
import { OPERATORS_BY_TYPE, type Operator } from './operators.ts';
import type { Dialect, FieldType, ScalarType, ValueType } from './types.ts';

export interface FieldDef {
  /** Physical column name (server-defined, written as a quoted identifier). */
  column: string;
  type: FieldType;
  /** The column may hold NULL (decides NULLS ordering and output typing). */
  nullable?: boolean;
  /** Narrows the operators of the type (operators.ts). */
  ops?: readonly Operator[];
  /** Default: true for scalar types, false for json and array. */
  sortable?: boolean;
  /** Only trusted server predicates (scopes, server expressions) may use it; clients get 400. */
  hidden?: boolean;
  /** Element type of an `array` field (bracket-style values are coerced to it). Default string. */
  items?: ScalarType;
  /** For `json` fields: allow `<name>.<path>` fields (compared as text; JSON operators on the sub-value). */
  jsonPaths?: boolean;
}

/** A many-to-one link usable as `<relation>.<field>` without an explicit join. */
interface Relation {
  table: TableDef;
  /** Field of this table holding the key. */
  from: string;
  /** Field of the target table it matches. */
  to: string;
  /** Target fields clients may reach through the relation. */
  fields: readonly string[];
}

export interface TableDef {
  /** Physical table name. */
  name: string;
  /** Logical field unique per row: tiebreak of sorts so that pages are stable. */
  key: string;
  /**
   * Further fields no two rows share among those any route's scope admits (the key always is):
   * a join matching one of them with `eq` adds at most one row per row.
   */
  unique?: readonly string[];
  fields: Readonly<Record<string, FieldDef>>;
  relations?: Readonly<Record<string, Relation>>;
  /**
   * Names a record carries that are stored inside a JSON field: each stands for a JSON path
   * (`successStatus` → `definition.successStatus`). A plain path behaves exactly like that path
   * (`staticResponse.status` reaches into it); one with a `type` is a field of that type: values
   * are coerced to it, its operators are the type's, and it compares as that type.
   */
  aliases?: Readonly<Record<string, Alias>>;
  /**
   * Fields a record shows that no column holds as such: a server-defined scalar expression over
   * the row's own columns (a user's `status` is its `active` flag spelled ACTIVE or DISABLED).
   * They filter, sort and project like fields of their type, and are listed by default.
   */
  computed?: Readonly<Record<string, Computed>>;
}

/** A computed field: `build` gets the table's columns by field name (hidden ones included). */
interface Computed {
  type: ScalarType;
  nullable?: boolean;
  build(column: (field: string) => SQL): SQL;
}

/** What an alias stands for: a JSON path, untyped or typed. */
export type Alias = string | { path: string; type: 'string' | 'integer' | 'boolean' };

export const aliasPath = (alias: Alias): string => (typeof alias === 'string' ? alias : alias.path);

/** What a row shows when no projection is asked for: every field not hidden, then the computed ones. */
export const visibleFields = (table: TableDef): string[] => [
  ...Object.entries(table.fields).filter(([, f]) => !f.hidden).map(([name]) => name),
  ...Object.keys(table.computed ?? {}),
];

/** Whether `name` is a field of the table, stored or computed. */
const isField = (table: TableDef, name: string): boolean => Object.hasOwn(table.fields, name) || Object.hasOwn(table.computed ?? {}, name);

/** The fields of a table no two rows share: its key, and what it declares `unique`. */
export const uniqueFields = (table: TableDef): readonly string[] => [table.key, ...(table.unique ?? [])];

/** Dynamic features an endpoint may enable (DESIGN §6); all off by default. */
export type Feature = 'distinct' | 'projection' | 'joins' | 'groupBy' | 'cast' | 'cte';
const FEATURES: readonly Feature[] = ['distinct', 'projection', 'joins', 'groupBy', 'cast', 'cte'];

export type ScalarFn = 'lower' | 'upper' | 'length' | 'coalesce' | 'date_trunc' | 'jsonExtract';
export type AggregateFn = 'count' | 'min' | 'max' | 'sum' | 'avg';
export const SCALAR_FNS: readonly ScalarFn[] = ['lower', 'upper', 'length', 'coalesce', 'date_trunc', 'jsonExtract'];
export const AGGREGATE_FNS: readonly AggregateFn[] = ['count', 'min', 'max', 'sum', 'avg'];

/**
 * A server-defined expression clients may select by name (`{raw: "name", as}`). `build` gets a
 * resolver for the resource's logical fields (hidden ones included) and the dialect.
 */
interface ServerExpression {
  type: ValueType;
  build(field: (name: string) => SQL, dialect: Dialect): SQL;
}

export interface ListResource {
  /** The base table of the list. */
  table: TableDef;
  features?: Partial<Record<Feature, boolean>>;
  /** Tables clients may name in `joins` (CTE names are joinable too when `cte` is on). */
  joinable?: readonly TableDef[];
  /** Tables clients may name as a CTE's `from`. */
  cteTables?: readonly TableDef[];
  /** Scalar functions for advanced projection entries (default: all of SCALAR_FNS). */
  functions?: readonly ScalarFn[];
  /** Aggregates allowed with `groupBy` (default: none). */
  aggregates?: readonly AggregateFn[];
  /** Names clients may select with `raw`. */
  expressions?: Readonly<Record<string, ServerExpression>>;
  /** Applied when the client gives no sort (ungrouped lists). */
  defaultSort?: readonly { field: string; dir: SortDirection }[];
  /** Appended to every ungrouped sort unless already present (default: the table's key). */
  tiebreak?: readonly string[];
  /** Projection when `fields` is absent (default: every non-hidden field of the table). */
  defaultFields?: readonly string[];
}

const COLUMN_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** Declares a table; throws at load time on a malformed definition (a programming error). */
export function defineTable(def: TableDef): TableDef {
  if (!COLUMN_NAME.test(def.name)) throw new Error(`table name '${def.name}' is not a plain identifier`);
  for (const [name, field] of Object.entries(def.fields)) {
    if (!FIELD_NAME.test(name)) throw new Error(`${def.name}: field name '${name}' is not a plain identifier`);
    if (!COLUMN_NAME.test(field.column)) throw new Error(`${def.name}.${name}: column '${field.column}' is not a plain identifier`);
    for (const op of field.ops ?? []) {
      const allowed = field.jsonPaths ? true : OPERATORS_BY_TYPE[field.type].includes(op);
      if (!allowed) throw new Error(`${def.name}.${name}: operator ${op} does not apply to ${field.type}`);
    }
    if (field.jsonPaths && field.type !== 'json') throw new Error(`${def.name}.${name}: jsonPaths needs type json`);
  }
  if (!def.fields[def.key]) throw new Error(`${def.name}: key '${def.key}' is not a field`);
  for (const name of def.unique ?? []) if (!def.fields[name]) throw new Error(`${def.name}: unique '${name}' is not a field`);
  for (const [name, rel] of Object.entries(def.relations ?? {})) {
    if (!FIELD_NAME.test(name) || def.fields[name]) throw new Error(`${def.name}: bad relation name '${name}'`);
    if (!def.fields[rel.from]) throw new Error(`${def.name}.${name}: from '${rel.from}' is not a field`);
    if (!rel.table.fields[rel.to]) throw new Error(`${def.name}.${name}: to '${rel.to}' is not a field of ${rel.table.name}`);
    for (const f of rel.fields) {
      if (!rel.table.fields[f]) throw new Error(`${def.name}.${name}: '${f}' is not a field of ${rel.table.name}`);
    }
  }
  for (const [name, alias] of Object.entries(def.aliases ?? {})) {
    const target = aliasPath(alias);
    const head = target.split('.', 1)[0]!;
    if (!FIELD_NAME.test(name) || def.fields[name]) throw new Error(`${def.name}: bad alias name '${name}'`);
    if (!def.fields[head]?.jsonPaths) throw new Error(`${def.name}.${name}: '${target}' is not a JSON path of a field`);
  }
  for (const name of Object.keys(def.computed ?? {})) {
    const taken = Object.hasOwn(def.fields, name) || Object.hasOwn(def.relations ?? {}, name) || Object.hasOwn(def.aliases ?? {}, name);
    if (!FIELD_NAME.test(name) || taken) throw new Error(`${def.name}: bad computed field name '${name}'`);
  }
  return def;
}

/** Declares a list resource; throws at load time when it names something that does not exist. */
export function defineResource(def: ListResource): ListResource {
  const { table } = def;
  for (const s of def.defaultSort ?? []) {
    if (!isField(table, s.field)) throw new Error(`defaultSort: '${s.field}' is not a field of ${def.table.name}`);
  }
  for (const f of def.tiebreak ?? []) {
    if (!isField(table, f)) throw new Error(`tiebreak: '${f}' is not a field of ${def.table.name}`);
  }
  for (const f of def.defaultFields ?? []) {
    if (!isField(table, f)) throw new Error(`defaultFields: '${f}' is not a field of ${def.table.name}`);
  }
  for (const name of Object.keys(def.expressions ?? {})) {
    if (!FIELD_NAME.test(name)) throw new Error(`expression name '${name}' is not a plain identifier`);
  }
  return def;
}

export const featureOn = (resource: ListResource, feature: Feature): boolean => resource.features?.[feature] === true;
