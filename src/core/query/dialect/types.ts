// What differs between SQLite and Postgres, as one interface with one implementation per
// database (sqlite.ts, postgres.ts). Every method takes SQL fragments the compiler built from
// server definitions plus plain values, and returns SQL in which those values are bound.
import type { SQL } from 'drizzle-orm';
import type { Dialect, ValueType } from '../model/index.ts';

/** A coerced value ready to bind (timestamps as epoch ms, dates as YYYY-MM-DD). */
export type Bindable = string | number | boolean;
export type JsonScalar = string | number | boolean;
export type TruncUnit = 'year' | 'month' | 'week' | 'day' | 'hour' | 'minute' | 'second';
export const TRUNC_UNITS: readonly TruncUnit[] = ['year', 'month', 'week', 'day', 'hour', 'minute', 'second'];
type Aggregate = 'count' | 'min' | 'max' | 'sum' | 'avg';

export interface SqlDialect {
  readonly name: Dialect;
  /** Text and params through drizzle's dialect class (for running, snapshots and debug). */
  toQuery(query: SQL): { sql: string; params: unknown[] };
  /** A bound value of `type` in the table's storage representation. */
  bind(type: ValueType, value: Bindable): SQL;
  /** A bound JSON document. */
  bindJson(value: unknown): SQL;
  /** The scalar at `path` inside a JSON column, as text (NULL when missing or JSON null). */
  jsonText(doc: SQL, path: readonly string[]): SQL;
  /** The value at `path` as a number when it is a JSON number, else NULL. */
  jsonNumber(doc: SQL, path: readonly string[]): SQL;
  /** The value at `path` as a boolean (what `bind('boolean', …)` compares with) when it is a JSON boolean, else NULL. */
  jsonBoolean(doc: SQL, path: readonly string[]): SQL;
  /** A number or a text as a JSON value (what a `json` column decodes). */
  toJson(value: SQL, from: 'number' | 'string'): SQL;
  /** The JSON sub-document at `path` (jsonb / JSON text). */
  jsonValue(doc: SQL, path: readonly string[]): SQL;
  /** `expr` is boolean true/false; `json` when expr is a JSON value rather than a boolean column. */
  isBool(expr: SQL, json: boolean, want: boolean): SQL;
  /** A LIKE pattern (% and _ wild, \ escapes); case-sensitive unless `insensitive`. */
  like(expr: SQL, pattern: string, insensitive: boolean): SQL;
  /** `text` matched literally at the start or end. */
  affix(expr: SQL, text: string, where: 'start' | 'end'): SQL;
  /** Array (JSON array) has at least one of `values`. */
  arrayHasAny(array: SQL, values: readonly JsonScalar[]): SQL;
  /** Array has every one of `values`. */
  arrayHasAll(array: SQL, values: readonly JsonScalar[]): SQL;
  /** Every element of the array is one of `values`. */
  arrayContainedBy(array: SQL, values: readonly JsonScalar[]): SQL;
  /**
   * JSON containment with Postgres' jsonb semantics: `doc` contains `value` (`@>`), or `doc` is
   * contained in `value` (`<@`). The value is the client's, known when compiling.
   */
  jsonContains(doc: SQL, value: unknown, direction: 'contains' | 'containedBy'): SQL;
  /** A conversion between logical types, or undefined when there is none. */
  cast(expr: SQL, from: ValueType, to: ValueType): SQL | undefined;
  dateTrunc(unit: TruncUnit, expr: SQL): SQL;
  /** How an expression is written in the outermost SELECT so drivers return one stable form. */
  output(expr: SQL, type: ValueType): SQL;
  /** The NULLS clause that makes NULL sort as the largest value on both databases. */
  nulls(dir: 'asc' | 'desc', nullable: boolean): SQL;
  /** Plan without executing (never ANALYZE). */
  explain(query: SQL): SQL;
  /** DISTINCT ON natively (Postgres) or through a window function (SQLite). */
  readonly distinctOn: boolean;
}
