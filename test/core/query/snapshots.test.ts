// Compiled SQL + params per operator and per dialect, as snapshots (the same table for both
// dialects), plus a few written out in full so a reader sees what the engine emits.
import { describe, expect, test } from 'bun:test';
import type { OPERATORS } from '../../../src/core/query/model/operators.ts';
import type { ListResource } from '../../../src/core/query/model/resource.ts';
import { runEventsResource } from '../../../src/core/query/resources/run-events.ts';
import { compiled } from './compiled.ts';
import { R1, thingsResource } from './fixtures.ts';
import { j } from './matrix.ts';

/** One predicate per operator on a field of a type that takes it. */
const OPERATOR_QUERIES: Record<(typeof OPERATORS)[number], unknown> = {
  eq: { field: 'name', op: 'eq', value: 'a' },
  ne: { field: 'rank', op: 'ne', value: 2 },
  gt: { field: 'score', op: 'gt', value: 1.5 },
  gte: { field: 'seenAt', op: 'gte', value: '2024-01-01T00:00:00Z' },
  lt: { field: 'rank', op: 'lt', value: '3' },
  lte: { field: 'rank', op: 'lte', value: 4 },
  like: { field: 'name', op: 'like', value: 'a\\_%' },
  notLike: { field: 'name', op: 'notLike', value: '%x' },
  ilike: { field: 'name', op: 'ilike', value: 'A%' },
  notILike: { field: 'name', op: 'notILike', value: 'A%' },
  in: { field: 'rank', op: 'in', value: [1, 2, 3] },
  notIn: { field: 'name', op: 'notIn', value: ['a', 'b'] },
  any: { field: 'tags', op: 'any', value: ['a', 'b'] },
  isNull: { field: 'note', op: 'isNull' },
  isNotNull: { field: 'note', op: 'isNotNull' },
  between: { field: 'rank', op: 'between', value: [1, 9] },
  contains: { field: 'meta', op: 'contains', value: { color: 'red' } },
  containedBy: { field: 'tags', op: 'containedBy', value: ['a', 'b'] },
  arrayHas: { field: 'nums', op: 'arrayHas', value: '2' },
  arrayHasAny: { field: 'tags', op: 'arrayHasAny', value: ['a', 'b'] },
  arrayHasAll: { field: 'tags', op: 'arrayHasAll', value: ['a', 'b'] },
  arrayContainedBy: { field: 'nums', op: 'arrayContainedBy', value: [1, 2] },
  jsonArrayHas: { field: 'meta.list', op: 'jsonArrayHas', value: 'a' },
  jsonArrayHasAny: { field: 'meta.list', op: 'jsonArrayHasAny', value: ['a', 1] },
  jsonArrayHasAll: { field: 'meta.list', op: 'jsonArrayHasAll', value: ['a', true] },
  startsWith: { field: 'name', op: 'startsWith', value: '50%_off' },
  endsWith: { field: 'note', op: 'endsWith', value: '[x]*' },
  true: { field: 'active', op: 'true' },
  false: { field: 'meta.flags.x', op: 'false' },
};

const STRUCTURE_QUERIES: [string, ListResource, string][] = [
  ['default events page', runEventsResource, 'limit=50&count=true'],
  ['relation field and JSON path', runEventsResource, `filter=${j({ and: [{ field: 'run.status', op: 'eq', value: 'completed' }, { field: 'data.toolName', op: 'eq', value: 'x' }] })}&fields=seq,data.toolName`],
  ['distinct', runEventsResource, 'distinct=type&sort=-seq&count=true'],
  ['groupBy', runEventsResource, `groupBy=actor&fields=${j(['actor', { fn: 'count', as: 'n' }])}&sort=-n&count=true`],
  ['join', runEventsResource, `joins=${j([{ table: 'runs', alias: 'r', type: 'left', on: { left: 'runId', op: 'eq', right: 'r.id' } }])}&fields=seq,r.status`],
  ['cte', runEventsResource, `cte=${j({ tc: { from: 'events', fields: ['tickIndex', { fn: 'count', as: 'n' }], groupBy: ['tickIndex'] } })}&joins=${j([{ table: 'tc', alias: 'x', type: 'inner', on: { left: 'tickIndex', op: 'eq', right: 'x.tickIndex' } }])}&fields=seq,x.n`],
  ['cast', thingsResource, 'cast={"rank":"TEXT","seenAt":"DATE"}&fields=rank,seenAt&sort=rank'],
  ['projection', thingsResource, `fields=${j([{ fn: 'date_trunc', args: ['day', 'seenAt'], as: 'day' }, { coalesce: ['note', { value: '-' }], as: 'n' }, { case: [{ when: { field: 'rank', op: 'gt', value: 1 }, then: { value: 'big' } }], else: { value: 'small' }, as: 'size' }])}`],
];

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`compiled SQL on ${dialect}`, () => {
    for (const [op, filter] of Object.entries(OPERATOR_QUERIES)) {
      test(`operator ${op}`, () => {
        expect(compiled(dialect, thingsResource, `filter=${j(filter)}&fields=id`)).toMatchSnapshot();
      });
    }
    for (const [name, resource, query] of STRUCTURE_QUERIES) {
      test(name, () => {
        expect(compiled(dialect, resource, query)).toMatchSnapshot();
      });
    }
  });
}

describe('compiled SQL, written out', () => {
  const q = `filter=${j({ field: 'type', op: 'startsWith', value: 'tool_call.' })}&fields=seq,type&limit=10`;
  test('sqlite', () => {
    expect(compiled('sqlite', runEventsResource, q).page).toEqual({
      sql: 'SELECT "t0"."seq" AS "c0", "t0"."type" AS "c1" FROM "events" AS "t0" WHERE ("t0"."run_id" = ?) AND ("t0"."type" GLOB ?) ORDER BY "t0"."seq" ASC LIMIT ? OFFSET ?',
      params: [R1, 'tool_call.*', 11, 0],
    });
  });
  test('postgres', () => {
    expect(compiled('postgres', runEventsResource, q).page).toEqual({
      sql: 'SELECT "t0"."seq" AS "c0", "t0"."type" AS "c1" FROM "events" AS "t0" WHERE ("t0"."run_id" = CAST($1 AS uuid)) AND ("t0"."type" LIKE $2) ORDER BY "t0"."seq" ASC LIMIT $3 OFFSET $4',
      params: [R1, 'tool\\_call.%', 11, 0],
    });
  });
});
