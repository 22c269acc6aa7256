// The parsed list query: what the client asked for, shape-checked but not yet resolved against
// an endpoint's fields. Every node keeps the pointer (`at`) of where it came from so that the
// compiler can point at the offending part. Names in here are client strings: they are only
// ever looked up in allowlists, never written into SQL.
import type { Operator } from './operators.ts';

export type SortDirection = 'asc' | 'desc';

/** A name as the client wrote it, and where. */
export interface NameRef {
  name: string;
  at: string;
}

export type FilterNode =
  | { kind: 'and' | 'or'; nodes: FilterNode[]; at: string }
  | { kind: 'not'; node: FilterNode; at: string }
  | Predicate;

export interface Predicate {
  kind: 'pred';
  field: string;
  op: Operator;
  /** Raw value: absent for value-less ops; strings when it came bracket-style. Coerced at compile. */
  value: unknown;
  at: string;
  /** The value came bracket-style: every leaf is a string, whatever the client meant. */
  bracket?: boolean;
}

export interface SortEntry {
  name: string;
  dir: SortDirection;
  at: string;
}

/** Cast targets of the spec; each maps to a type per dialect (compile/cast.ts). */
export const CAST_TYPES = [
  'TEXT',
  'INTEGER',
  'BIGINT',
  'NUMERIC',
  'BOOLEAN',
  'DATE',
  'TIMESTAMP',
  'TIMESTAMPTZ',
  'JSON',
  'JSONB',
  'UUID',
] as const;
export type CastType = (typeof CAST_TYPES)[number];

/** A projection expression. `field` names resolve through the allowlist; `literal` is bound. */
export type Expr =
  | { kind: 'field'; name: string; at: string }
  | { kind: 'star'; at: string }
  | { kind: 'literal'; value: string | number | boolean | null; at: string }
  | { kind: 'fn'; fn: string; args: Expr[]; option?: string; filterType?: string; at: string }
  | { kind: 'cast'; type: CastType; arg: Expr; at: string }
  | { kind: 'coalesce'; args: Expr[]; at: string }
  | { kind: 'case'; branches: { when: FilterNode; then: Expr }[]; otherwise?: Expr; at: string }
  | { kind: 'raw'; name: string; at: string };

export interface ProjectionEntry {
  expr: Expr;
  /** Output key in the response rows. */
  as: string;
  /** True for entries beyond a plain field name (need the endpoint's `projection` feature). */
  advanced: boolean;
  at: string;
}

export type JoinOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte';

export interface JoinSpec {
  table: string;
  alias: string;
  type: 'left' | 'inner';
  on: { left: string; op: JoinOp; right: string };
  at: string;
}

export interface CastEntry {
  key: string;
  type: CastType;
  at: string;
}

export interface CteSpec {
  name: string;
  from: string;
  filter?: FilterNode;
  fields?: ProjectionEntry[];
  groupBy?: NameRef[];
  sort?: SortEntry[];
  limit?: number;
  at: string;
}

/** The whole parsed request; `undefined` means "not given" (defaults apply at compile). */
export interface ListQuery {
  offset: number;
  limit: number;
  count: boolean;
  debug: boolean;
  filter?: FilterNode;
  sort?: SortEntry[];
  distinct?: NameRef[];
  fields?: ProjectionEntry[];
  joins?: JoinSpec[];
  groupBy?: NameRef[];
  cast?: CastEntry[];
  cte?: CteSpec[];
}
