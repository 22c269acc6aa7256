// Filter trees → SQL boolean expressions. Groups nest in parentheses; each predicate resolves
// its field through the scope and binds its value (predicate.ts).
import { type SQL, sql } from 'drizzle-orm';
import { type FilterNode, at } from '../model/index.ts';
import { compilePredicate } from './predicate.ts';
import type { Scope } from './scope.ts';

export function compileFilter(scope: Scope, node: FilterNode): SQL {
  switch (node.kind) {
    case 'and':
    case 'or': {
      const parts = node.nodes.map((child) => compileFilter(scope, child));
      return sql`(${sql.join(parts, node.kind === 'and' ? sql` AND ` : sql` OR `)})`;
    }
    case 'not':
      return sql`NOT (${compileFilter(scope, node.node)})`;
    case 'pred':
      return compilePredicate(scope, scope.resolve(node.field, at(node.at, 'field')), node);
  }
}

/** ANDs the parts that exist. */
export function and(parts: (SQL | undefined)[]): SQL | undefined {
  const present = parts.filter((p): p is SQL => p !== undefined);
  if (present.length === 0) return undefined;
  if (present.length === 1) return present[0];
  return sql`(${sql.join(present, sql`) AND (`)})`;
}
