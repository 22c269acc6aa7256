// Plans one SELECT (the main list or a CTE body): filter, projection, grouping, distinct and
// sort, resolved against a scope. The plan keeps expressions apart from how render.ts writes
// them, because grouped and distinct queries refer to their columns by generated name.
import { type SQL, sql } from 'drizzle-orm';
import {
  type CastType,
  type FilterNode,
  type NameRef,
  type ProjectionEntry,
  type SortDirection,
  type SortEntry,
  type Issues,
  fail,
  AGGREGATE_FNS,
  featureOn,
  type ScalarType,
  type ValueType,
  isScalarType,
} from '../model/index.ts';
import { CAST_TARGET } from './cast.ts';
import { compileExpr } from './expr.ts';
import { compileFilter } from './filter.ts';
import type { Scope } from './scope.ts';

export interface Column {
  /** Output key (client name); hidden columns are not returned. */
  key: string;
  /** Generated SQL name: c0…, g0… */
  name: string;
  sql: SQL;
  type: ValueType;
  nullable: boolean;
  items?: ScalarType;
  hidden: boolean;
  aggregate: boolean;
  /** The groupBy/distinct field this column is a plain reference to, if any. */
  field?: string;
}

export interface OrderItem {
  sql: SQL;
  dir: SortDirection;
  nullable: boolean;
}

export interface SelectPlan {
  where?: SQL;
  columns: Column[];
  grouped: boolean;
  /** Generated names of the group key columns (GROUP BY uses their positions). */
  groupColumns: string[];
  /** DISTINCT ON key expressions. */
  distinct?: SQL[];
  order: OrderItem[];
}

export interface SelectInput {
  filter?: FilterNode;
  fields?: ProjectionEntry[];
  groupBy?: NameRef[];
  sort?: SortEntry[];
  distinct?: NameRef[];
  /** Pointers of the parameters, for violations about a parameter as a whole. */
  at: { fields: string; groupBy: string; distinct: string };
  defaultFields: readonly string[];
  defaultSort: readonly { field: string; dir: SortDirection }[];
  tiebreak: readonly string[];
  /** Casts by projection alias (main query only). */
  castAliases?: ReadonlyMap<string, { type: CastType; at: string }>;
  /** Records casts applied by alias, so the caller can check the remaining keys as fields. */
  usedCasts?: Set<string>;
}

const isAggregateEntry = (e: ProjectionEntry) => e.expr.kind === 'fn' && (AGGREGATE_FNS as readonly string[]).includes(e.expr.fn);

export function planSelect(scope: Scope, input: SelectInput, issues: Issues): SelectPlan {
  const { ctx } = scope;
  const { resource, dialect } = ctx;
  const plan: SelectPlan = { columns: [], grouped: false, groupColumns: [], order: [] };

  if (input.filter) {
    const filter = input.filter;
    const where = issues.section(() => compileFilter(scope, filter));
    if (where) plan.where = where;
  }

  const groupBy = input.groupBy;
  if (groupBy && !featureOn(resource, 'groupBy')) fail(input.at.groupBy, 'groupBy is not enabled on this endpoint');
  if (input.distinct && !featureOn(resource, 'distinct')) fail(input.at.distinct, 'distinct is not enabled on this endpoint');
  const groupNames = new Set(groupBy?.map((g) => g.name));
  const entries =
    input.fields ??
    (groupBy ?? input.defaultFields.map((name) => ({ name, at: input.at.fields }))).map(
      (n): ProjectionEntry => ({ expr: { kind: 'field', name: n.name, at: n.at }, as: n.name, advanced: false, at: n.at }),
    );
  const grouped = groupBy !== undefined || entries.some(isAggregateEntry);
  plan.grouped = grouped;
  if (grouped && input.distinct) fail(input.at.distinct, 'distinct cannot be combined with groupBy or aggregates');

  // Projection.
  const seen = new Set<string>();
  entries.forEach((entry) => {
    issues.section(() => {
      if (entry.advanced && !isAggregateEntry(entry) && !featureOn(resource, 'projection')) {
        fail(entry.at, 'advanced projection entries are not enabled on this endpoint');
      }
      if (seen.has(entry.as)) fail(entry.at, `'${entry.as}' is selected twice`);
      seen.add(entry.as);
      const column = projectEntry(scope, entry, grouped, plan.columns.length);
      if (grouped && !column.aggregate && !(column.field !== undefined && groupNames.has(column.field))) {
        fail(entry.at, `'${entry.as}' must be an aggregate or one of the groupBy fields`);
      }
      const cast = input.castAliases?.get(entry.as);
      if (cast && column.field !== entry.as) {
        const to = CAST_TARGET[cast.type];
        const converted = dialect.cast(column.sql, column.type, to);
        if (!converted) fail(cast.at, `a ${column.type} cannot be cast to ${cast.type}`);
        Object.assign(column, { sql: converted, type: to, nullable: true });
        input.usedCasts?.add(entry.as);
      }
      plan.columns.push(column);
    });
  });

  // Group keys are selected (hidden if not asked for) and grouped by position, so Postgres never
  // has to match two copies of an expression whose bound parameters differ.
  groupBy?.forEach((g, i) => {
    issues.section(() => {
      const existing = plan.columns.find((c) => c.field === g.name && !c.aggregate);
      if (existing) return plan.groupColumns.push(existing.name);
      const op = scope.resolve(g.name, g.at);
      const name = `g${i}`;
      plan.columns.push({ key: name, name, sql: op.sql, type: op.type, nullable: op.nullable, hidden: true, aggregate: false, field: g.name });
      return plan.groupColumns.push(name);
    });
  });

  if (input.distinct) {
    const keys: SQL[] = [];
    input.distinct.forEach((d) => {
      issues.section(() => {
        const op = scope.resolve(d.name, d.at);
        if (!op.sortable) fail(d.at, `'${d.name}' cannot be used with distinct`);
        keys.push(op.sql);
        // The distinct fields join the projection.
        if (!plan.columns.some((c) => c.key === d.name)) {
          plan.columns.push({ key: d.name, name: `c${plan.columns.length}`, sql: op.output, type: op.outputType, nullable: op.nullable, hidden: false, aggregate: false, field: d.name });
        }
      });
    });
    plan.distinct = keys;
  }

  // Sort.
  const sort =
    input.sort ??
    (grouped ? (groupBy ?? []).map((g) => ({ name: g.name, dir: 'asc' as const, at: g.at })) : input.defaultSort.map((s) => ({ name: s.field, dir: s.dir, at: '/query/sort', implied: true })));
  for (const entry of sort) {
    issues.section(() => {
      if (grouped) {
        const col = plan.columns.find((c) => !c.hidden && c.key === entry.name) ?? plan.columns.find((c) => c.field === entry.name && !c.aggregate);
        if (!col) fail(entry.at, `sort a grouped list by a groupBy field or a selected aggregate ('${entry.name.slice(0, 64)}' is neither)`);
        if (!isScalarType(col.type)) fail(entry.at, `cannot sort by '${entry.name}' (${col.type})`);
        plan.order.push({ sql: sql`${sql.identifier(col.name)}`, dir: entry.dir, nullable: col.nullable });
        return;
      }
      const aliased = plan.columns.find((c) => !c.hidden && c.key === entry.name && c.field !== entry.name);
      if (aliased) {
        if (!isScalarType(aliased.type)) fail(entry.at, `cannot sort by '${entry.name}' (${aliased.type})`);
        plan.order.push({ sql: aliased.sql, dir: entry.dir, nullable: aliased.nullable });
        return;
      }
      const op = scope.resolve(entry.name, entry.at);
      // The list's default sort was not asked for: say so, and where to give another.
      if (!op.sortable) fail(entry.at, `cannot sort by '${entry.name}'${'implied' in entry ? ' (the default sort of this list; give sort=… to choose another)' : ''}`);
      // A JSON path sorts its numbers numerically first, then by text (non-numbers as NULLs there).
      if (op.number) plan.order.push({ sql: op.number, dir: entry.dir, nullable: true });
      plan.order.push({ sql: op.sql, dir: entry.dir, nullable: op.nullable });
    });
  }
  if (grouped) {
    // Group keys are unique per row of a grouped list: they break ties of an aggregate sort.
    const sorted = new Set(sort.map((s) => s.name));
    for (const g of groupBy ?? []) {
      if (sorted.has(g.name)) continue;
      const col = plan.columns.find((c) => c.field === g.name && !c.aggregate);
      if (col && isScalarType(col.type)) plan.order.push({ sql: sql`${sql.identifier(col.name)}`, dir: 'asc', nullable: col.nullable });
    }
  } else {
    // A unique tiebreak keeps pages stable when sort values repeat. It runs in the direction of
    // the last sort term: an index on (sorted column, key) — or on the sorted column alone when
    // the key is SQLite's rowid — then yields the whole order in one scan, where a mixed
    // direction makes the planner sort every matching row.
    const named = new Set(sort.map((s) => s.name));
    const dir = plan.order.at(-1)?.dir ?? 'asc';
    for (const field of input.tiebreak) {
      if (named.has(field)) continue;
      const op = scope.trusted().resolve(field, '/query/sort');
      plan.order.push({ sql: op.sql, dir, nullable: op.nullable });
    }
  }
  return plan;
}

function projectEntry(scope: Scope, entry: ProjectionEntry, grouped: boolean, index: number): Column {
  const name = `c${index}`;
  const expr = entry.expr;
  if (expr.kind === 'field') {
    const op = scope.resolve(expr.name, expr.at);
    // Grouped lists return the grouping value itself (a JSON path groups by its text).
    const column: Column = grouped
      ? { key: entry.as, name, sql: op.sql, type: op.type, nullable: op.nullable, hidden: false, aggregate: false, field: expr.name }
      : { key: entry.as, name, sql: op.output, type: op.outputType, nullable: op.nullable, hidden: false, aggregate: false, field: expr.name };
    if (op.items) column.items = op.items;
    return column;
  }
  const typed = compileExpr(scope, expr);
  return { key: entry.as, name, sql: typed.sql, type: typed.type, nullable: typed.nullable, hidden: false, aggregate: typed.aggregate };
}
