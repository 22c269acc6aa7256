// Explicit joins: `{table, alias, type, on: {left, op, right}}` over the endpoint's joinable
// tables or the request's CTEs. The client alias only names the join for later field
// references (`r.status`); the SQL gets a generated alias. A joined table is restricted by the
// route's trusted scope for that table, inside the ON clause.
import { type SQL, sql } from 'drizzle-orm';
import { type JoinOp, type JoinSpec, at, fail, featureOn, uniqueFields, type ValueType } from '../model/index.ts';
import type { Source } from './context.ts';
import { type Scope, tableScope } from './scope.ts';

const OPS: Record<JoinOp, SQL> = { eq: sql` = `, ne: sql` <> `, gt: sql` > `, gte: sql` >= `, lt: sql` < `, lte: sql` <= ` };

/** Whether two types can be compared without a cast. */
function comparable(a: ValueType, b: ValueType): boolean {
  if (a === 'json' || a === 'array' || b === 'json' || b === 'array') return false;
  if (a === b) return true;
  return (a === 'integer' || a === 'number') && (b === 'integer' || b === 'number');
}

/** Compiles the joins in order, registering each alias in `scope`; returns the JOIN clauses. */
export function compileJoins(scope: Scope, joins: readonly JoinSpec[], pointer: string): SQL[] {
  const { ctx } = scope;
  if (!featureOn(ctx.resource, 'joins')) fail(pointer, 'joins are not enabled on this endpoint');
  const out: SQL[] = [];
  let fanOut: JoinSpec | undefined;
  for (const join of joins) {
    const aliasAt = at(join.at, 'alias');
    const base = scope.base;
    const taken =
      scope.joins.has(join.alias) ||
      (base.kind === 'table' && (Object.hasOwn(base.table.fields, join.alias) || Object.hasOwn(base.table.relations ?? {}, join.alias) || Object.hasOwn(base.table.computed ?? {}, join.alias)));
    if (taken) fail(aliasAt, `alias '${join.alias}' is already a field, relation or join`);

    // Resolve the left side before the alias exists, so it cannot refer to the table it joins.
    const left = scope.resolve(join.on.left, at(at(join.at, 'on'), 'left'));
    const source = joinSource(scope, join);
    scope.joins.set(join.alias, source);
    const rightAt = at(at(join.at, 'on'), 'right');
    if (!join.on.right.startsWith(`${join.alias}.`)) fail(rightAt, `the right side must be a field of '${join.alias}' (${join.alias}.<field>)`);
    const right = scope.resolve(join.on.right, rightAt);
    if (!comparable(left.type, right.type)) fail(at(join.at, 'on'), `cannot compare ${left.type} with ${right.type}`);
    // A join that may match many rows per row multiplies the rows; two of them multiply products,
    // which one request could make large enough to hold the database for minutes. One is allowed.
    if (!matchesOneRow(source, join)) {
      if (fanOut) {
        fail(at(join.at, 'on'), `only one join may match several rows per row ('${fanOut.alias}' does); join on a unique field with eq, such as ${join.alias}.${uniqueOf(source)[0] ?? 'id'}`);
      }
      fanOut = join;
    }

    let on = sql`${left.sql}${OPS[join.on.op]}${right.sql}`;
    if (source.kind === 'table') {
      const restricted = tableScope(ctx, source.table, source.alias);
      if (restricted) on = sql`${on} AND ${restricted}`;
    }
    const target = source.kind === 'table' ? sql.identifier(source.table.name) : sql.identifier(source.cte.name);
    const kind = join.type === 'inner' ? sql` INNER JOIN ` : sql` LEFT JOIN `;
    out.push(sql`${kind}${target} AS ${sql.identifier(source.alias)} ON ${on}`);
  }
  return out;
}

const uniqueOf = (source: Source): readonly string[] => (source.kind === 'table' ? uniqueFields(source.table) : source.cte.unique);

/** An `eq` join on a field no two rows of the joined source share adds at most one row per row. */
function matchesOneRow(source: Source, join: JoinSpec): boolean {
  return join.on.op === 'eq' && uniqueOf(source).includes(join.on.right.slice(join.alias.length + 1));
}

function joinSource(scope: Scope, join: JoinSpec): Source {
  const { ctx } = scope;
  const cte = ctx.ctes.get(join.table);
  if (cte) return { kind: 'cte', alias: ctx.alias(), cte };
  const table = ctx.resource.joinable?.find((t) => t.name === join.table);
  if (!table) return fail(at(join.at, 'table'), `table '${join.table.slice(0, 64)}' cannot be joined here`);
  ctx.requireScope(table);
  return { kind: 'table', alias: ctx.alias(), table };
}
