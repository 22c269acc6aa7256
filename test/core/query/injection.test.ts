// An SQL-injection corpus through every parameter, on every database: the outcome is always a
// result or a 400, never another error, never a row outside the route's scope, and the tables
// are intact afterwards. The corpus is vendored (test/fixtures/sql-injection.txt); Debian's
// wfuzz word lists are added when installed (apt-get install wfuzz).
import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { runEventsResource } from '../../../src/core/query/resources/run-events.ts';
import { EVENTS, R1 } from './fixtures.ts';
import { EVENTS_OPTIONS, j, list, openAll } from './matrix.ts';

const SOURCES = [
  new URL('../../fixtures/sql-injection.txt', import.meta.url).pathname,
  '/usr/share/wfuzz/wordlist/Injections/SQL.txt',
  '/usr/share/wfuzz/wordlist/Injections/All_attack.txt',
];
const corpus = [...new Set(SOURCES.filter((file) => existsSync(file)).flatMap((file) => readFileSync(file, 'utf8').split('\n')).filter((line) => line !== ''))];

/** Every place a client string can go, as a query-string builder. */
const SLOTS: Record<string, (v: string) => string> = {
  'filter value (string)': (v) => `filter=${j({ field: 'type', op: 'eq', value: v })}`,
  'filter value (like)': (v) => `filter=${j({ field: 'type', op: 'like', value: v })}`,
  'filter value (startsWith)': (v) => `filter=${j({ field: 'type', op: 'startsWith', value: v })}`,
  'filter value (uuid)': (v) => `filter=${j({ field: 'runId', op: 'eq', value: v })}`,
  'filter value (integer)': (v) => `filter=${j({ field: 'seq', op: 'gte', value: v })}`,
  'filter value (timestamp)': (v) => `filter=${j({ field: 'createdAt', op: 'lt', value: v })}`,
  'filter value (in, bracket)': (v) => `filter[field]=type&filter[op]=in&filter[value][0]=${encodeURIComponent(v)}`,
  'filter value (JSON path)': (v) => `filter=${j({ field: 'data.toolName', op: 'eq', value: v })}`,
  'filter value (contains)': (v) => `filter=${j({ field: 'data', op: 'contains', value: { [v]: v } })}`,
  'filter value (jsonArrayHasAny)': (v) => `filter=${j({ field: 'data.tags', op: 'jsonArrayHasAny', value: [v] })}`,
  'filter field': (v) => `filter=${j({ field: v, op: 'eq', value: 'x' })}`,
  'filter op': (v) => `filter=${j({ field: 'type', op: v, value: 'x' })}`,
  'whole filter': (v) => `filter=${encodeURIComponent(v)}`,
  sort: (v) => `sort=${encodeURIComponent(v)}`,
  'sort object': (v) => `sort=${j({ seq: v })}`,
  fields: (v) => `fields=${encodeURIComponent(v)}`,
  'fields alias': (v) => `fields=${j([{ fn: 'lower', args: ['type'], as: v }])}`,
  'fields raw': (v) => `fields=${j([{ raw: v, as: 'x' }])}`,
  'fields literal': (v) => `fields=${j([{ value: v, as: 'x' }])}`,
  'fields fn': (v) => `fields=${j([{ fn: v, args: ['type'], as: 'x' }])}`,
  'date_trunc unit': (v) => `fields=${j([{ fn: 'date_trunc', args: [v, 'createdAt'], as: 'x' }])}`,
  distinct: (v) => `distinct=${encodeURIComponent(v)}`,
  groupBy: (v) => `groupBy=${encodeURIComponent(v)}`,
  'joins table': (v) => `joins=${j([{ table: v, alias: 'r', type: 'left', on: { left: 'runId', op: 'eq', right: 'r.id' } }])}`,
  'joins alias': (v) => `joins=${j([{ table: 'runs', alias: v, type: 'left', on: { left: 'runId', op: 'eq', right: `${v}.id` } }])}`,
  'joins on': (v) => `joins=${j([{ table: 'runs', alias: 'r', type: 'left', on: { left: v, op: 'eq', right: 'r.id' } }])}`,
  'cast key': (v) => `cast=${j({ [v]: 'TEXT' })}`,
  'cast type': (v) => `cast=${j({ seq: v })}`,
  'cte name': (v) => `cte=${j({ [v]: { from: 'events' } })}`,
  'cte from': (v) => `cte=${j({ a: { from: v } })}`,
  'cte filter': (v) => `cte=${j({ a: { from: 'runs', filter: { field: 'status', op: 'eq', value: v } } })}&joins=${j([{ table: 'a', alias: 'x', type: 'inner', on: { left: 'runId', op: 'eq', right: 'x.id' } }])}&fields=seq,x.id`,
  limit: (v) => `limit=${encodeURIComponent(v)}`,
  offset: (v) => `offset=${encodeURIComponent(v)}`,
  count: (v) => `count=${encodeURIComponent(v)}`,
  'raw query string': (v) => v,
};

const dbs = await openAll();

for (const db of dbs) {
  describe(`injection corpus (${corpus.length} strings) on ${db.name}`, () => {
    for (const [slot, build] of Object.entries(SLOTS)) {
      test(slot, async () => {
        for (const payload of corpus) {
          const outcome = await list(db, runEventsResource, `${build(payload)}&count=true`, EVENTS_OPTIONS);
          if (!outcome.ok) {
            expect([payload, outcome.problem.status]).toEqual([payload, 400]);
            continue;
          }
          expect(outcome.result.meta.count ?? 0).toBeLessThanOrEqual(12);
          for (const row of outcome.result.data) if ('runId' in row) expect(row.runId).toBe(R1);
          for (const row of outcome.result.data) if ('x.id' in row) expect(row['x.id']).not.toBe(EVENTS.at(-1)?.runId);
        }
      });
    }

    test('tables are intact afterwards', async () => {
      const outcome = await list(db, runEventsResource, 'count=true&limit=0', { debugAllowed: false, scope: { field: 'runId', op: 'in', value: [...new Set(EVENTS.map((e) => e.runId))] } });
      expect(outcome.ok && outcome.result.meta.count).toBe(EVENTS.length);
    });
  });
}
