// Computed fields (TableDef.computed): a server expression over the row's columns that filters,
// sorts, coerces values and projects like a stored field of its type, on every database.
import { describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { defineResource, defineTable, type TableDef } from '../../../src/core/query/model/index.ts';
import { thingsResource } from './fixtures.ts';
import { j, list, openAll } from './matrix.ts';

const table: TableDef = defineTable({
  ...thingsResource.table,
  computed: {
    // The fixture's `active`: true for alpha, delta_x, zeta; false for Beta, epsilon; NULL for gamma.
    state: { type: 'string', nullable: true, build: (column) => sql`CASE WHEN ${column('active')} THEN 'ON' WHEN NOT ${column('active')} THEN 'OFF' END` },
    rankTwice: { type: 'integer', nullable: true, build: (column) => sql`(${column('rank')} * 2)` },
  },
});
const resource = defineResource({ table, defaultSort: [{ field: 'name', dir: 'asc' }] });

const dbs = await openAll();

for (const db of dbs) {
  describe(`computed fields on ${db.name}`, () => {
    const names = async (query: string) => {
      const outcome = await list(db, resource, query);
      if (!outcome.ok) throw new Error(`unexpected ${outcome.problem.status}: ${JSON.stringify(outcome.problem.errors)}`);
      return outcome.result.data.map((row) => row.name);
    };

    test('filters with the operators of their type', async () => {
      expect(await names(`filter=${j({ field: 'state', op: 'eq', value: 'ON' })}`)).toEqual(['alpha', 'delta_x', 'zeta']);
      expect(await names(`filter=${j({ field: 'state', op: 'in', value: ['OFF'] })}`)).toEqual(['Beta', 'epsilon']);
      expect(await names(`filter=${j({ field: 'state', op: 'isNull' })}`)).toEqual(['gamma']);
      expect(await names(`filter=${j({ field: 'state', op: 'startsWith', value: 'O' })}`)).toEqual(['Beta', 'alpha', 'delta_x', 'epsilon', 'zeta']);
      expect(await names(`filter=${j({ not: { field: 'state', op: 'ilike', value: 'on' } })}`)).toEqual(['Beta', 'epsilon']);
      // Bracket-style values are coerced to the field's type.
      expect(await names('filter[field]=rankTwice&filter[op]=gt&filter[value]=4')).toEqual(['delta_x', 'epsilon']);
    });

    test('sort (NULL largest) and project by name; listed by default', async () => {
      expect(await names('sort=-state,name')).toEqual(['gamma', 'alpha', 'delta_x', 'zeta', 'Beta', 'epsilon']);
      const picked = await list(db, resource, `fields=name,state,rankTwice&filter=${j({ field: 'name', op: 'in', value: ['alpha', 'gamma'] })}`);
      expect(picked.ok && picked.result.data).toEqual([{ name: 'alpha', state: 'ON', rankTwice: 2 }, { name: 'gamma', state: null, rankTwice: null }]);
      const all = await list(db, resource, 'limit=1');
      expect(all.ok && Object.keys(all.result.data[0]!)).toEqual(expect.arrayContaining(['id', 'name', 'state', 'rankTwice']));
      expect(all.ok && Object.keys(all.result.data[0]!)).not.toContain('secret');
    });

    test('an operator of another type is a 400 at the predicate', async () => {
      const outcome = await list(db, resource, `filter=${j({ field: 'state', op: 'contains', value: ['ON'] })}`);
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) expect(outcome.problem.errors?.map((e) => e.pointer)).toEqual(['/query/filter/op']);
    });
  });
}

test('a computed field may not take the name of a field, relation or alias', () => {
  expect(() => defineTable({ ...thingsResource.table, computed: { name: { type: 'string', build: () => sql`'x'` } } })).toThrow("bad computed field name 'name'");
  expect(() => defineResource({ table, defaultSort: [{ field: 'nope', dir: 'asc' }] })).toThrow("defaultSort: 'nope'");
  expect(defineResource({ table, defaultSort: [{ field: 'state', dir: 'asc' }] }).defaultSort).toEqual([{ field: 'state', dir: 'asc' }]);
});
