// The list engine (DESIGN §6): what route handlers and resource declarations may use.
export type { CastType, FilterNode, ListQuery, SortDirection } from './ast.ts';
export { type CompiledList, compileList } from './compile/index.ts';
export { dialectFor } from './dialect/index.ts';
export type { SqlDialect } from './dialect/types.ts';
export { LIMITS } from './limits.ts';
export { fieldsOf, tableName } from './table-fields.ts';
export { OPERATORS, type Operator } from './operators.ts';
export { parseListQuery, parseListQueryPartly } from './parse/index.ts';
export {
  type AggregateFn,
  defineResource,
  defineTable,
  type Feature,
  type FieldDef,
  type ListResource,
  type Relation,
  type ScalarFn,
  type ServerExpression,
  type TableDef,
} from './resource.ts';
export { type FilterInput, type ListMeta, type ListResult, type RunListOptions, runList } from './run.ts';
export { postgresRunner, sqliteRunner } from './runners.ts';
export type { Dialect, FieldType, ScalarType, SqlRunner, ValueType } from './types.ts';
