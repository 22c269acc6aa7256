// compileList: a parsed ListQuery + an endpoint's resource → the page query, the optional count
// query and how to decode the rows. Pure: no database access, so it is what snapshot tests and
// the property tests exercise.
import { type SQL, sql } from 'drizzle-orm';
import type { CastType, FilterNode, ListQuery } from '../model/index.ts';
import { flatten, quoteName } from '../dialect/index.ts';
import type { SqlDialect } from '../dialect/index.ts';
import { Issues, fail } from '../model/index.ts';
import { type ListResource, featureOn, visibleFields } from '../model/index.ts';
import type { ValueType } from '../model/index.ts';
import { Ctx } from './context.ts';
import { compileCtes } from './cte.ts';
import { and, compileFilter } from './filter.ts';
import { compileJoins } from './joins.ts';
import { renderCount, renderPage } from './render.ts';
import { Scope } from './scope.ts';
import { planSelect } from './select.ts';

export interface CompiledList {
  page: SQL;
  count?: SQL;
  /** Returned columns: generated SQL name → output key and type. */
  columns: { name: string; key: string; type: ValueType }[];
  limit: number;
  offset: number;
}

export interface Scopes {
  /** Trusted predicate over the base table (parsed). */
  base?: FilterNode;
  /** Trusted predicates per table for joins and CTEs; 'all' lets a table be read unrestricted. */
  tables: ReadonlyMap<string, FilterNode | 'all'>;
}

export function compileList(dialect: SqlDialect, resource: ListResource, query: ListQuery, scopes: Scopes): CompiledList {
  const issues = new Issues();
  const baseName = resource.table.name;
  // The base scope also governs CTEs reading the base table.
  const tables = new Map(scopes.tables);
  const baseScope = combine(scopes.base, tables.get(baseName));
  if (baseScope) tables.set(baseName, baseScope);
  const ctx = new Ctx(dialect, resource, tables);

  const cast = new Map<string, { type: CastType; at: string }>();
  if (query.cast) {
    const entries = query.cast;
    issues.section(() => {
      if (!featureOn(resource, 'cast')) fail('/query/cast', 'cast is not enabled on this endpoint');
      for (const e of entries) cast.set(e.key, { type: e.type, at: e.at });
    });
  }
  if (query.cte) {
    const specs = query.cte;
    issues.section(() => compileCtes(ctx, specs, '/query/cte', issues));
  }
  issues.throwIfAny();

  const base = { kind: 'table' as const, alias: ctx.alias(), table: resource.table };
  const scope = new Scope(ctx, base, { trusted: false, cast });
  const joins = query.joins ? issues.section(() => compileJoins(scope, query.joins ?? [], '/query/joins')) : [];
  issues.throwIfAny();

  const usedCasts = new Set<string>();
  const plan = issues.section(() =>
    planSelect(scope, {
      ...(query.filter ? { filter: query.filter } : {}),
      ...(query.fields ? { fields: query.fields } : {}),
      ...(query.groupBy ? { groupBy: query.groupBy } : {}),
      ...(query.sort ? { sort: query.sort } : {}),
      ...(query.distinct ? { distinct: query.distinct } : {}),
      at: { fields: '/query/fields', groupBy: '/query/groupBy', distinct: '/query/distinct' },
      defaultFields: resource.defaultFields ?? visibleFields(resource.table),
      defaultSort: resource.defaultSort ?? [],
      tiebreak: resource.tiebreak ?? [resource.table.key],
      castAliases: cast,
      usedCasts,
    }, issues),
  );
  // Cast keys that named no alias must be fields (checked on a throwaway scope: no joins added).
  for (const [key, entry] of cast) {
    if (usedCasts.has(key)) continue;
    issues.section(() => {
      const probe = new Scope(ctx, base, { trusted: false });
      for (const [alias, source] of scope.joins) probe.joins.set(alias, source);
      probe.resolve(key, entry.at);
    });
  }
  issues.throwIfAny();
  if (!plan) throw new Error('unreachable: plan failed without an issue');

  const restricted = baseScope ? compileFilter(scope.trusted(), baseScope) : undefined;
  const from = sql`${sql.identifier(resource.table.name)} AS ${sql.identifier(base.alias)}`;
  const where = and([restricted, plan.where]);
  const clause = { from, joins: [...scope.relationJoins, ...(joins ?? [])], ...(where ? { where } : {}) };

  const compiled: CompiledList = {
    page: flatten(renderPage(ctx, plan, clause, query.limit, query.offset), quoteName),
    columns: plan.columns.filter((c) => !c.hidden).map((c) => ({ name: c.name, key: c.key, type: c.type })),
    limit: query.limit,
    offset: query.offset,
  };
  if (query.count) compiled.count = flatten(renderCount(ctx, plan, clause), quoteName);
  return compiled;
}

function combine(a: FilterNode | undefined, b: FilterNode | 'all' | undefined): FilterNode | undefined {
  const other = b === 'all' ? undefined : b;
  if (a && other) return { kind: 'and', nodes: [a, other], at: '/scope' };
  return a ?? other;
}
