// Property tests (fast-check): (a) hostile values and names change only bound params, never the
// SQL text; (b) every encoding of one query compiles to the same SQL and params; (c) random
// trees and random query strings within the limits give a result or a 400, nothing else.
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import qs from 'qs';
import { ProblemError } from '../../../src/core/http/problem.ts';
import { OPERATORS } from '../../../src/core/query/model/operators.ts';
import { parseListQuery } from '../../../src/core/query/parse/index.ts';
import type { ListResource } from '../../../src/core/query/model/resource.ts';
import { runEventsResource } from '../../../src/core/query/resources/run-events.ts';
import type { Dialect } from '../../../src/core/query/model/types.ts';
import { R1, thingsResource } from './fixtures.ts';
import { EVENTS_OPTIONS, j, list, openAll } from './matrix.ts';
import { compiled } from './compiled.ts';

const DIALECTS: Dialect[] = ['sqlite', 'postgres'];

/** Compiles, or returns the 400 (anything else fails the property). */
function compileOr400(dialect: Dialect, resource: ListResource, query: string) {
  try {
    return compiled(dialect, resource, query);
  } catch (error) {
    if (error instanceof ProblemError && error.status === 400) return 400 as const;
    throw error;
  }
}

const hostile = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom("'", "' OR 1=1 --", '"; DROP TABLE events; --', '\\', '%', '_', '$1', '?', '*/', '/*', '"t0"."run_id"', ')', '\u0000', "' || (SELECT 1) || '"),
);

describe('(a) hostile values change only the params', () => {
  const templates: [string, ListResource, (v: string) => string, string][] = [
    ['eq on a string', runEventsResource, (v) => `filter=${j({ field: 'type', op: 'eq', value: v })}`, 'x'],
    ['like', runEventsResource, (v) => `filter=${j({ field: 'type', op: 'like', value: v })}`, 'x'],
    ['ilike', runEventsResource, (v) => `filter=${j({ field: 'type', op: 'notILike', value: v })}`, 'x'],
    ['startsWith', runEventsResource, (v) => `filter=${j({ field: 'actor', op: 'startsWith', value: v })}`, 'x'],
    ['endsWith', runEventsResource, (v) => `filter=${j({ field: 'actor', op: 'endsWith', value: v })}`, 'x'],
    ['in', runEventsResource, (v) => `filter=${j({ field: 'type', op: 'in', value: [v, `${v}2`] })}`, 'x'],
    ['between', runEventsResource, (v) => `filter=${j({ field: 'type', op: 'between', value: [v, v] })}`, 'x'],
    ['JSON path text', runEventsResource, (v) => `filter=${j({ field: 'data.toolName', op: 'gte', value: v })}`, 'x'],
    ['jsonArrayHas', runEventsResource, (v) => `filter=${j({ field: 'data.tags', op: 'jsonArrayHas', value: v })}`, 'x'],
    // The value's shape (keys, nesting) shapes the SQL; its strings, keys included, are bound.
    ['contains (value and key)', runEventsResource, (v) => `filter=${j({ field: 'data', op: 'contains', value: { k: v, [`x${v}`]: [v] } })}`, 'x'],
    ['containedBy (value and key)', runEventsResource, (v) => `filter=${j({ field: 'data', op: 'containedBy', value: { k: v, [`x${v}`]: [v, { [v]: v }] } })}`, 'x'],
    ['arrayHasAll', thingsResource, (v) => `filter=${j({ field: 'tags', op: 'arrayHasAll', value: [v] })}`, 'x'],
    ['uuid value', runEventsResource, (v) => `filter=${j({ field: 'runId', op: 'eq', value: v })}`, R1],
    ['bracket value', runEventsResource, (v) => `filter[field]=type&filter[op]=eq&filter[value]=${encodeURIComponent(v)}`, 'x'],
    ['literal in projection', runEventsResource, (v) => `fields=${j([{ value: v, as: 'v' }, { coalesce: ['data.toolName', { value: v }], as: 'c' }])}`, 'x'],
    ['case branch', runEventsResource, (v) => `fields=${j([{ case: [{ when: { field: 'type', op: 'eq', value: v }, then: { value: v } }], as: 'c' }])}`, 'x'],
    ['alias', runEventsResource, (v) => `fields=${j([{ fn: 'lower', args: ['type'], as: v }])}&sort=-${encodeURIComponent(v)}`, 'a'],
    ['join alias', runEventsResource, (v) => `joins=${j([{ table: 'runs', alias: v, type: 'left', on: { left: 'runId', op: 'eq', right: `${v}.id` } }])}&fields=seq,${encodeURIComponent(`${v}.status`)}`, 'r'],
    ['CTE name', runEventsResource, (v) => `cte=${j({ [v]: { from: 'events', fields: ['seq'] } })}&joins=${j([{ table: v, alias: 'x', type: 'inner', on: { left: 'seq', op: 'eq', right: 'x.seq' } }])}`, 'a'],
    ['JSON path segment', runEventsResource, (v) => `filter=${j({ field: `data.${v}`, op: 'eq', value: 'x' })}`, 'x'],
  ];
  for (const [name, resource, template, benign] of templates) {
    test(name, () => {
      const baseline = DIALECTS.map((d) => compileOr400(d, resource, template(benign)));
      for (const b of baseline) expect(b).not.toBe(400);
      fc.assert(
        fc.property(hostile, (v) => {
          DIALECTS.forEach((d, i) => {
            const out = compileOr400(d, resource, template(v));
            const base = baseline[i];
            if (out === 400 || base === 400 || base === undefined) return;
            expect(out.page.sql).toBe(base.page.sql);
          });
        }),
        { numRuns: 150 },
      );
    });
  }
});

// (b) A random query in its canonical form, and every way to write it.
const field = fc.constantFrom('type', 'actor', 'data.toolName', 'seq', 'tickIndex', 'createdAt', 'runId', 'run.status');
const textValue = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 });
// A bracket-style value spelled as a number orders a JSON path as that number, while the JSON
// string "5" orders it as text (README of src/core/query): only non-numeric text is the same either way.
const nonNumericText = textValue.filter((v) => !/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(v));
const predicate = fc.oneof(
  fc.record({ field: fc.constantFrom('type', 'actor', 'data.toolName'), op: fc.constantFrom('eq', 'ne', 'gt', 'like', 'ilike', 'startsWith', 'endsWith'), value: nonNumericText }),
  fc.record({ field: fc.constantFrom('type', 'actor'), op: fc.constantFrom('in', 'notIn'), value: fc.array(textValue, { minLength: 1, maxLength: 4 }) }),
  fc.record({ field: fc.constantFrom('seq', 'tickIndex'), op: fc.constantFrom('eq', 'gt', 'lte'), value: fc.oneof(fc.integer({ min: -5, max: 20 }), fc.integer({ min: 0, max: 20 }).map(String)) }),
  fc.record({ field: fc.constantFrom('seq'), op: fc.constant('between'), value: fc.tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 20 })) }),
  fc.record({ field: fc.constantFrom('tickIndex', 'parentRunId', 'data.toolName'), op: fc.constantFrom('isNull', 'isNotNull') }),
  fc.record({ field: fc.constant('createdAt'), op: fc.constantFrom('gte', 'lt'), value: fc.constantFrom('2024-03-02', '2024-03-01T12:00:00Z', '1709290800000') }),
);
const tree: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, predicate, tie('group'), tie('not')),
  group: fc.record({ and: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }).chain((g) => fc.constantFrom(g, { or: g.and })),
  not: fc.record({ not: tie('node') }),
})).node;
const sortEntries = fc.uniqueArray(fc.record({ name: field, desc: fc.boolean() }), { selector: (s) => s.name, minLength: 1, maxLength: 3 });
const names = fc.uniqueArray(fc.constantFrom('id', 'seq', 'type', 'actor', 'createdAt', 'data.toolName'), { minLength: 1, maxLength: 4 });

function encodings(spec: { filter: unknown; sort: { name: string; desc: boolean }[]; fields: string[]; limit: number; offset: number }): string[] {
  const legacy = spec.sort.map((s) => `${s.desc ? '-' : ''}${s.name}`);
  const tail = `limit=${spec.limit}&offset=${spec.offset}`;
  const sortForms = [
    `sort=${encodeURIComponent(legacy.join(','))}`,
    legacy.map((s) => `sort=${encodeURIComponent(s)}`).join('&'),
    legacy.map((s, i) => `sort[${i}]=${encodeURIComponent(s)}`).join('&'),
    `sort=${j(legacy)}`,
    `sort=${j(Object.fromEntries(spec.sort.map((s) => [s.name, s.desc ? 'DESC' : 'ASC'])))}`,
    qs.stringify({ sort: spec.sort.map((s) => ({ field: s.name, dir: s.desc ? 'desc' : 'asc' })) }),
  ];
  const fieldForms = [
    `fields=${spec.fields.join(',')}`,
    spec.fields.map((f) => `fields=${f}`).join('&'),
    spec.fields.map((f, i) => `fields[${i}]=${f}`).join('&'),
    `fields=${j(spec.fields)}`,
  ];
  const filterForms = [`filter=${j(spec.filter)}`, qs.stringify({ filter: spec.filter })];
  return sortForms.map((s, i) => [filterForms[i % 2], s, fieldForms[i % fieldForms.length], tail].join('&'));
}

describe('(b) equivalent encodings compile to the same SQL', () => {
  test('random trees, sorts and projections', () => {
    let compiledRuns = 0;
    fc.assert(
      fc.property(tree, sortEntries, names, fc.integer({ min: 0, max: 10_000 }), fc.nat(1000), (filter, sort, fields, limit, offset) => {
        const forms = encodings({ filter, sort, fields, limit, offset });
        for (const d of DIALECTS) {
          const outs = forms.map((q) => compileOr400(d, runEventsResource, q));
          for (const out of outs) expect(out).toEqual(outs[0] as never);
          if (outs[0] !== 400) compiledRuns++;
        }
      }),
      { numRuns: 300 },
    );
    // Most generated queries are valid: the property compared real SQL, not only 400s.
    expect(compiledRuns).toBeGreaterThan(400);
  });
});

// (c) Anything within the limits: a result or a 400.
const anyField = fc.oneof(field, fc.constantFrom('id', 'rootRunId', 'data', 'data.tags', 'data.args.q', 'run.agentId', 'nope', 'run.secret', 'data.a b', ''), fc.string({ maxLength: 12 }));
const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string(), fc.integer(), fc.array(fc.oneof(fc.string(), fc.integer(), fc.boolean()), { maxLength: 5 }));
const anyPredicate = fc.record({ field: anyField, op: fc.oneof(fc.constantFrom(...OPERATORS), fc.string({ maxLength: 6 })), value: anyValue }, { requiredKeys: ['field', 'op'] });
const anyTree: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small', maxDepth: 9 }, anyPredicate, tie('and'), tie('or'), tie('not'), fc.jsonValue({ maxDepth: 2 })),
  and: fc.record({ and: fc.array(tie('node'), { maxLength: 4 }) }),
  or: fc.record({ or: fc.array(tie('node'), { maxLength: 4 }) }),
  not: fc.record({ not: tie('node') }),
})).node;
/** Mostly valid, sometimes hostile: so the property covers both results and 400s. */
const mostly = <T, U>(valid: fc.Arbitrary<T>, wild: fc.Arbitrary<U>) => fc.oneof({ arbitrary: valid, weight: 5 }, { arbitrary: wild, weight: 1 });
const anyQuery = fc.record(
  {
    filter: mostly(tree, anyTree),
    sort: mostly(sortEntries.map((s) => s.map((e) => `${e.desc ? '-' : ''}${e.name}`)), fc.array(fc.string({ maxLength: 12 }), { maxLength: 3 })),
    fields: mostly(names, fc.array(fc.oneof(anyField, fc.record({ fn: fc.constantFrom('count', 'min', 'max', 'lower', 'date_trunc', 'x'), args: fc.array(anyField, { maxLength: 2 }), as: fc.string({ maxLength: 6 }) })), { maxLength: 4 })),
    distinct: mostly(fc.constantFrom(['type'], ['actor'], ['type', 'actor']), fc.array(anyField, { maxLength: 2 })),
    cast: mostly(fc.constantFrom({ seq: 'TEXT' }, { 'data.n': 'NUMERIC' }, { createdAt: 'DATE' }), fc.dictionary(anyField, fc.constantFrom('TEXT', 'INTEGER', 'NUMERIC', 'BOOLEAN', 'DATE', 'TIMESTAMPTZ', 'JSONB', 'UUID', 'x'))),
    limit: mostly(fc.integer({ min: 0, max: 10_000 }), fc.oneof(fc.integer({ min: -1, max: 10_001 }), fc.string({ maxLength: 4 }))),
    count: mostly(fc.constantFrom('true', 'false'), fc.string({ maxLength: 3 })),
  },
  { requiredKeys: [] },
);

const dbs = await openAll();

function toQueryString(q: Record<string, unknown>): string {
  return Object.entries(q)
    .map(([k, v]) => (typeof v === 'string' || typeof v === 'number' ? `${k}=${encodeURIComponent(String(v))}` : `${k}=${j(v)}`))
    .join('&');
}

for (const db of dbs) {
  describe(`(c) random input on ${db.name} gives a result or a 400`, () => {
    test('random structured queries', async () => {
      let results = 0;
      await fc.assert(
        fc.asyncProperty(anyQuery, async (q) => {
          const outcome = await list(db, runEventsResource, toQueryString(q), EVENTS_OPTIONS);
          if (!outcome.ok) {
            expect(outcome.problem.status).toBe(400);
            return;
          }
          results++;
          for (const row of outcome.result.data) if ('runId' in row) expect(row.runId).toBe(R1);
        }),
        { numRuns: 400 },
      );
      expect(results).toBeGreaterThan(20);
    });

    test('random valid trees run', async () => {
      let results = 0;
      await fc.assert(
        fc.asyncProperty(tree, sortEntries, async (filter, sort) => {
          const q = `filter=${j(filter)}&sort=${sort.map((s) => `${s.desc ? '-' : ''}${s.name}`).join(',')}&count=true`;
          const outcome = await list(db, runEventsResource, q, EVENTS_OPTIONS);
          if (!outcome.ok) {
            expect(outcome.problem.status).toBe(400);
            return;
          }
          results++;
          expect(outcome.result.meta.count ?? 0).toBeLessThanOrEqual(12);
          for (const row of outcome.result.data) expect(row.runId).toBe(R1);
        }),
        { numRuns: 300 },
      );
      expect(results).toBeGreaterThan(200);
    });

    test('random query strings', async () => {
      const raw = fc.oneof(fc.string({ unit: 'binary', maxLength: 80 }), fc.array(fc.tuple(fc.constantFrom('filter', 'sort', 'fields', 'limit', 'cte', 'joins', 'cast', 'filter[and][0]', 'filter[field]', 'filter[op]', 'filter[value][0]'), fc.string({ maxLength: 20 })), { maxLength: 6 }).map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')));
      await fc.assert(
        fc.asyncProperty(raw, async (query) => {
          const outcome = await list(db, runEventsResource, query, EVENTS_OPTIONS);
          if (!outcome.ok) expect(outcome.problem.status).toBe(400);
        }),
        { numRuns: 300 },
      );
    });
  });
}
