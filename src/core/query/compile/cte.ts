// CTEs: named sub-queries in the same structured language, over an allowlisted table (with the
// route's scope for it) or an earlier CTE. Their columns become fields of whatever joins them.
import { sql } from 'drizzle-orm';
import type { CteSpec } from '../model/index.ts';
import { type Issues, at, fail } from '../model/index.ts';
import { featureOn, uniqueFields, visibleFields } from '../model/index.ts';
import type { Ctx, Source } from './context.ts';
import { renderCteBody } from './render.ts';
import { Scope, tableScope } from './scope.ts';
import { planSelect, type Column } from './select.ts';

export function compileCtes(ctx: Ctx, specs: readonly CteSpec[], pointer: string, issues: Issues): void {
  if (!featureOn(ctx.resource, 'cte')) fail(pointer, 'CTEs are not enabled on this endpoint');
  const tableNames = new Set([ctx.resource.table.name, ...(ctx.resource.joinable ?? []).map((t) => t.name), ...(ctx.resource.cteTables ?? []).map((t) => t.name)]);
  for (const spec of specs) {
    if (tableNames.has(spec.name)) fail(spec.at, `a CTE cannot be named like the table '${spec.name}'`);
    compileOne(ctx, spec, issues);
    issues.throwIfAny(); // later CTEs and the main query depend on this one
  }
}

function compileOne(ctx: Ctx, spec: CteSpec, issues: Issues): void {
  const earlier = ctx.ctes.get(spec.from);
  const table = earlier ? undefined : ctx.resource.cteTables?.find((t) => t.name === spec.from);
  if (!earlier && !table) fail(at(spec.at, 'from'), `'${spec.from.slice(0, 64)}' is neither a table available to CTEs nor an earlier CTE`);
  const alias = ctx.alias();
  let source: Source;
  if (table) {
    ctx.requireScope(table);
    source = { kind: 'table', alias, table };
  } else if (earlier) source = { kind: 'cte', alias, cte: earlier };
  else return;
  const scope = new Scope(ctx, source, { trusted: false });
  const defaultFields = source.kind === 'table'
    ? visibleFields(source.table)
    : source.cte.columns.map((c) => c.key);
  const plan = planSelect(scope, {
    ...(spec.filter ? { filter: spec.filter } : {}),
    ...(spec.fields ? { fields: spec.fields } : {}),
    ...(spec.groupBy ? { groupBy: spec.groupBy } : {}),
    ...(spec.sort ? { sort: spec.sort } : {}),
    at: { fields: at(spec.at, 'fields'), groupBy: at(spec.at, 'groupBy'), distinct: at(spec.at, 'distinct') },
    defaultFields,
    defaultSort: [],
    // Only a limited CTE needs a stable order; then the table's key breaks ties.
    tiebreak: spec.limit !== undefined && source.kind === 'table' ? [source.table.key] : [],
  }, issues);
  issues.throwIfAny();
  const restricted = source.kind === 'table' ? tableScope(ctx, source.table, alias) : undefined;
  const where = restricted && plan.where ? sql`(${restricted}) AND (${plan.where})` : (restricted ?? plan.where);
  const from = source.kind === 'table' ? sql`${sql.identifier(source.table.name)} AS ${sql.identifier(alias)}` : sql`${sql.identifier(source.cte.name)} AS ${sql.identifier(alias)}`;
  const body = renderCteBody(ctx, plan, { from, joins: scope.relationJoins, ...(where ? { where } : {}) }, spec.limit);
  const columns = plan.columns.filter((c) => !c.hidden);
  ctx.ctes.set(spec.name, {
    name: ctx.cteName(),
    body,
    columns: columns.map((c) => ({ key: c.key, name: c.name, type: c.type, nullable: c.nullable, ...(c.items ? { items: c.items } : {}) })),
    unique: uniqueColumns(source, spec, columns),
  });
}

/**
 * The CTE's columns no two of its rows share: the one field it groups by, when it groups by one;
 * ungrouped, a plain reference to a field unique in what it reads. Anything else counts as shared.
 */
function uniqueColumns(source: Source, spec: CteSpec, columns: readonly Column[]): string[] {
  if (spec.groupBy !== undefined) {
    if (spec.groupBy.length !== 1) return [];
    return columns.filter((c) => c.field === spec.groupBy![0]!.name && !c.aggregate).map((c) => c.key);
  }
  const unique = source.kind === 'table' ? uniqueFields(source.table) : source.cte.unique;
  return columns.filter((c) => c.field !== undefined && !c.aggregate && unique.includes(c.field)).map((c) => c.key);
}
