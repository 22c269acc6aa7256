// The list engine's shared model: the parsed query (ast.ts), value types, operators, limits,
// resource definitions and issues. parse/, compile/ and dialect/ build on it; ../README.md states
// the semantics.

export {
  CAST_TYPES,
  type CastEntry,
  type CastType,
  type CteSpec,
  type Expr,
  type FilterNode,
  type JoinOp,
  type JoinSpec,
  type ListQuery,
  type NameRef,
  type Predicate,
  type ProjectionEntry,
  type SortDirection,
  type SortEntry,
} from './ast.ts';
export { at, debugForbidden, fail, Issues, QueryIssue } from './errors.ts';
export { LIMITS } from './limits.ts';
export { ARITY, isOperator, JSON_PATH_OPERATORS, type Operator, OPERATORS_BY_TYPE } from './operators.ts';
export {
  AGGREGATE_FNS,
  type AggregateFn,
  type Alias,
  aliasPath,
  defineResource,
  defineTable,
  featureOn,
  type FieldDef,
  type ListResource,
  SCALAR_FNS,
  type ScalarFn,
  type TableDef,
  uniqueFields,
  visibleFields,
} from './resource.ts';
export { type Dialect, type FieldType, isScalarType, type ScalarType, type SqlRunner, type ValueType } from './types.ts';
