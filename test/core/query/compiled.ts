// Compiles a query string for a dialect without a database: what snapshot and property tests
// compare. The events resource gets the route's scope (run R1).
import { compileList } from '../../../src/core/query/compile/index.ts';
import { dialectFor } from '../../../src/core/query/dialect/index.ts';
import { parseListQuery } from '../../../src/core/query/parse/index.ts';
import type { ListResource } from '../../../src/core/query/model/resource.ts';
import { runEventsResource } from '../../../src/core/query/resources/run-events.ts';
import type { Dialect } from '../../../src/core/query/model/types.ts';
import { R1 } from './fixtures.ts';

const eventScopes = {
  base: { kind: 'pred' as const, field: 'runId', op: 'eq' as const, value: R1, at: '/scope' },
  tables: new Map([['runs', 'all' as const]]),
};

export function compiled(dialect: Dialect, resource: ListResource, query: string) {
  const scopes = resource === runEventsResource ? eventScopes : { tables: new Map() };
  const out = compileList(dialectFor(dialect), resource, parseListQuery(query), scopes);
  const d = dialectFor(dialect);
  return { page: d.toQuery(out.page), ...(out.count ? { count: d.toQuery(out.count) } : {}) };
}
