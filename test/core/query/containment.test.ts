// JSON containment on SQLite (`contains` / `containedBy`, compiled from the client's value into
// json_each subqueries) against jsonb's `@>`: a reference written from Postgres' documented rules,
// checked on hand-picked documents, against Postgres itself when one is reachable, and on random
// documents and values (fast-check) against the SQLite compilation.
import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { sqlite } from '../../../src/core/query/dialect/sqlite.ts';
import { databaseCases, POSTGRES_URL } from '../../helpers/databases.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** jsonb `a @> b`: objects by key, arrays by any element, scalars equal; a top-level array holds its scalars. */
function jsonbContains(a: Json, b: Json, top = true): boolean {
  const scalar = (v: Json) => v === null || typeof v !== 'object';
  if (scalar(b)) {
    if (scalar(a)) return a === b;
    return top && Array.isArray(a) && a.some((x) => scalar(x) && x === b);
  }
  if (Array.isArray(b)) return Array.isArray(a) && b.every((x) => a.some((y) => jsonbContains(y, x, false)));
  if (scalar(a) || Array.isArray(a)) return false;
  const object = a as Record<string, Json>;
  return Object.entries(b).every(([key, x]) => Object.hasOwn(object, key) && jsonbContains(object[key]!, x, false));
}

const db = new Database(':memory:');
afterAll(() => db.close());

/** What SQLite answers for `doc contains value` (or containedBy), the document bound as JSON text. */
function onSqlite(doc: Json, value: Json, direction: 'contains' | 'containedBy'): boolean {
  const { sql: text, params } = sqlite.toQuery(sql`SELECT CASE WHEN ${sqlite.jsonContains(sql`${JSON.stringify(doc)}`, value, direction)} THEN 1 ELSE 0 END AS hit`);
  const row = db.query(text).get(...(params as never[])) as { hit: number };
  return row.hit === 1;
}

const CASES: [string, Json, Json, boolean][] = [
  // [what, document, value, document @> value]
  ['a null member needs the key', { createdBy: 'u' }, { stopReason: null }, false],
  ['a null member present', { stopReason: null, x: 1 }, { stopReason: null }, true],
  ['an empty object needs the key', { a: 1 }, { nosuchkey: {} }, false],
  ['an empty object needs an object there', { s: 'text' }, { s: {} }, false],
  ['an empty array needs an array there', { s: 'text' }, { s: [] }, false],
  ['an object never contains an array', { a: 1 }, [], false],
  ['an empty object is in every object', { a: 1 }, {}, true],
  ['an object inside an array, in any position', { items: [{ a: 1 }, { b: 2 }] }, { items: [{ b: 2 }] }, true],
  ['an array inside an array, in any position', { nested: [[1, 2], [3]] }, { nested: [[3]] }, true],
  ['array elements in any order, repeats allowed', [1, 2, 3], [3, 1, 1], true],
  ['a top-level array holds its scalars', ['a', 'b'], 'a', true],
  ['only at the top level', { a: [1, 2] }, { a: 1 }, false],
  ['a nested array does not hold a scalar', [['a']], ['a'], false],
  ['numbers compare as numbers', { n: 1.0 }, { n: 1 }, true],
  ['a string is not a number', { n: '1' }, { n: 1 }, false],
  ['true is not 1', { b: true }, { b: 1 }, false],
  ['scalars equal', 'x', 'x', true],
  ['deep', { a: { b: [{ c: [1, { d: null }] }] } }, { a: { b: [{ c: [{ d: null }] }] } }, true],
  ['deep, missing', { a: { b: [{ c: [1, { d: null }] }] } }, { a: { b: [{ c: [{ e: null }] }] } }, false],
  ['keys with quotes and dots', { 'a."b': { 'c.d': 1 } }, { 'a."b': { 'c.d': 1 } }, true],
];

describe('the reference agrees with jsonb on hand-picked documents', () => {
  test.each(CASES)('%s', (_what, doc, value, expected) => {
    expect(jsonbContains(doc, value)).toBe(expected);
  });

  const onPostgres = databaseCases().some((c) => c.name === 'postgres');
  test.skipIf(!onPostgres)('and Postgres agrees with the reference', async () => {
    const pg = postgres(POSTGRES_URL, { max: 1, onnotice: () => {} });
    try {
      for (const [what, doc, value, expected] of CASES) {
        const [row] = await pg`SELECT (${JSON.stringify(doc)}::text)::jsonb @> (${JSON.stringify(value)}::text)::jsonb AS hit`;
        expect({ what, hit: row!.hit }).toEqual({ what, hit: expected });
      }
    } finally {
      await pg.end({ timeout: 1 });
    }
  });
});

describe('SQLite answers as jsonb', () => {
  test.each(CASES)('contains: %s', (_what, doc, value, expected) => {
    expect(onSqlite(doc, value, 'contains')).toBe(expected);
  });

  test.each(CASES)('containedBy, the other way round: %s', (_what, doc, value, expected) => {
    // doc @> value is value <@ doc: the stored value is `value`, the client's is `doc`.
    expect(onSqlite(value, doc, 'containedBy')).toBe(expected);
  });

  // Small alphabets, so that random documents and values often overlap.
  const scalar = fc.oneof(fc.constant(null), fc.boolean(), fc.constantFrom(0, 1, 1.5, -2), fc.constantFrom('a', 'b', '1', ''));
  const json: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalar,
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3 }),
    ),
  })).value;

  test('random documents and values: contains and containedBy', () => {
    fc.assert(
      fc.property(json, json, (doc, value) => {
        expect(onSqlite(doc, value, 'contains')).toBe(jsonbContains(doc, value));
        expect(onSqlite(doc, value, 'containedBy')).toBe(jsonbContains(value, doc));
      }),
      { numRuns: 1500 },
    );
  });

  test('a document that is SQL NULL matches nothing, either way', () => {
    const { sql: text, params } = sqlite.toQuery(sql`SELECT CASE WHEN ${sqlite.jsonContains(sql`NULL`, {}, 'contains')} THEN 1 ELSE 0 END AS a, CASE WHEN ${sqlite.jsonContains(sql`NULL`, [], 'containedBy')} THEN 1 ELSE 0 END AS b`);
    expect(db.query(text).get(...(params as never[]))).toEqual({ a: 0, b: 0 });
  });
});
