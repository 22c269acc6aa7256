// Writes plans as SQL: the page query (limit + 1 rows, for hasMore), the count query over the
// same filtered set, and CTE bodies. Distinct pages are DISTINCT ON in Postgres and a
// ROW_NUMBER() window in SQLite; both keep, per key, the first row in the requested order.
import { type SQL, sql } from 'drizzle-orm';
import type { Ctx } from './context.ts';
import type { Column, OrderItem, SelectPlan } from './select.ts';

const id = (name: string) => sql.identifier(name);
const list = (parts: SQL[]) => sql.join(parts, sql`, `);

/** FROM … JOIN … WHERE … of a plan. */
export interface FromClause {
  from: SQL;
  joins: SQL[];
  where?: SQL;
}

function fromWhere(f: FromClause): SQL {
  const where = f.where ? sql` WHERE ${f.where}` : sql``;
  return sql` FROM ${f.from}${sql.join(f.joins, sql``)}${where}`;
}

function orderBy(ctx: Ctx, items: OrderItem[], ref?: (item: OrderItem, i: number) => SQL): SQL {
  if (items.length === 0) return sql``;
  const parts = items.map((item, i) => sql`${ref ? ref(item, i) : item.sql} ${item.dir === 'asc' ? sql`ASC` : sql`DESC`}${ctx.dialect.nulls(item.dir, item.nullable)}`);
  return sql` ORDER BY ${list(parts)}`;
}

function groupBy(plan: SelectPlan): SQL {
  if (plan.groupColumns.length === 0) return sql``;
  const positions = plan.groupColumns.map((name) => plan.columns.findIndex((c) => c.name === name) + 1);
  // Positions are integers computed here, never client text.
  return sql` GROUP BY ${sql.raw(positions.join(', '))}`;
}

function withClause(ctx: Ctx): SQL {
  const ctes = [...ctx.ctes.values()];
  if (ctes.length === 0) return sql``;
  return sql`WITH ${list(ctes.map((c) => sql`${id(c.name)} AS (${c.body})`))} `;
}

const selectList = (columns: Column[], expr: (c: Column) => SQL) => list(columns.map((c) => sql`${expr(c)} AS ${id(c.name)}`));

/** The page query: `limit + 1` rows from `offset`. */
export function renderPage(ctx: Ctx, plan: SelectPlan, f: FromClause, limit: number, offset: number): SQL {
  const { dialect } = ctx;
  const page = sql` LIMIT ${limit + 1} OFFSET ${offset}`;
  const out = (c: Column, e: SQL) => dialect.output(e, c.type);
  if (!plan.distinct) {
    return sql`${withClause(ctx)}SELECT ${selectList(plan.columns, (c) => out(c, c.sql))}${fromWhere(f)}${groupBy(plan)}${orderBy(ctx, plan.order)}${page}`;
  }
  const keys = plan.distinct;
  const d = (name: string) => sql`${id('d')}.${id(name)}`;
  const outer = selectList(plan.columns, (c) => out(c, d(c.name)));
  const sortCols = plan.order.map((o, i) => sql`${o.sql} AS ${id(`s${i}`)}`);
  const outerOrder = orderBy(ctx, plan.order, (_, i) => d(`s${i}`));
  const inner = selectList(plan.columns, (c) => c.sql);
  if (dialect.distinctOn) {
    // DISTINCT ON and its leading ORDER BY name the same output columns, so they match even
    // when the key expressions carry bound parameters.
    const keyCols = keys.map((k, i) => sql`${k} AS ${id(`k${i}`)}`);
    const keyNames = keys.map((_, i) => sql`${id(`k${i}`)}`);
    const innerOrder = sql` ORDER BY ${list([...keyNames, ...plan.order.map((o, i) => sql`${id(`s${i}`)} ${o.dir === 'asc' ? sql`ASC` : sql`DESC`}`)])}`;
    return sql`${withClause(ctx)}SELECT ${outer} FROM (SELECT DISTINCT ON (${list(keyNames)}) ${list([inner, ...keyCols, ...sortCols])}${fromWhere(f)}${innerOrder}) AS ${id('d')}${outerOrder}${page}`;
  }
  const window = sql`ROW_NUMBER() OVER (PARTITION BY ${list(keys)}${orderBy(ctx, plan.order)}) AS ${id('rn')}`;
  return sql`${withClause(ctx)}SELECT ${outer} FROM (SELECT ${list([inner, ...sortCols, window])}${fromWhere(f)}) AS ${id('d')} WHERE ${d('rn')} = 1${outerOrder}${page}`;
}

/** COUNT(*) over the same filtered set: distinct keys or groups count once. */
export function renderCount(ctx: Ctx, plan: SelectPlan, f: FromClause): SQL {
  const n = id('n');
  if (plan.distinct) {
    const keys = list(plan.distinct.map((k, i) => sql`${k} AS ${id(`k${i}`)}`));
    return sql`${withClause(ctx)}SELECT COUNT(*) AS ${n} FROM (SELECT DISTINCT ${keys}${fromWhere(f)}) AS ${id('g')}`;
  }
  if (plan.grouped) {
    const keyColumns = plan.columns.filter((c) => plan.groupColumns.includes(c.name));
    const inner = keyColumns.length === 0 ? sql`COUNT(*) AS ${id('x')}` : selectList(keyColumns, (c) => c.sql);
    const grouping = keyColumns.length === 0 ? sql`` : sql` GROUP BY ${sql.raw(keyColumns.map((_, i) => i + 1).join(', '))}`;
    return sql`${withClause(ctx)}SELECT COUNT(*) AS ${n} FROM (SELECT ${inner}${fromWhere(f)}${grouping}) AS ${id('g')}`;
  }
  return sql`${withClause(ctx)}SELECT COUNT(*) AS ${n}${fromWhere(f)}`;
}

/** A CTE body: native values (no output formatting), optional limit. */
export function renderCteBody(ctx: Ctx, plan: SelectPlan, f: FromClause, limit: number | undefined): SQL {
  const page = limit === undefined ? sql`` : sql` LIMIT ${limit}`;
  return sql`SELECT ${selectList(plan.columns, (c) => c.sql)}${fromWhere(f)}${groupBy(plan)}${orderBy(ctx, plan.order)}${page}`;
}
