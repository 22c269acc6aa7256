// Parameter encodings and their limits: every encoding of one meaning gives the same tree, and
// every malformed or oversized parameter is a 400 pointing at it.
import { describe, expect, test } from 'bun:test';
import { ProblemError } from '../../../src/core/http/problem.ts';
import type { ListQuery } from '../../../src/core/query/model/ast.ts';
import { LIMITS } from '../../../src/core/query/model/limits.ts';
import { parseListQuery } from '../../../src/core/query/parse/index.ts';
import { j } from './matrix.ts';

/** The tree without pointers and encoding marks (which say where a part came from, not what it means). */
export function meaning(query: ListQuery): unknown {
  return JSON.parse(JSON.stringify(query, (key, value: unknown) => (key === 'at' || key === 'bracket' ? undefined : value)));
}

function problem(query: string): ProblemError {
  try {
    parseListQuery(query);
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
  throw new Error(`expected a 400 for ${query}`);
}

const same = (...queries: string[]) => {
  const [first, ...rest] = queries.map((q) => meaning(parseListQuery(q)));
  for (const other of rest) expect(other).toEqual(first);
};

describe('encodings', () => {
  test('defaults', () => {
    expect(parseListQuery('')).toEqual({ offset: 0, limit: 100, count: false, debug: false });
  });

  test('sort: legacy comma list, repeated, indexed, JSON array, JSON object, entry objects', () => {
    same(
      'sort=-seq,createdAt',
      'sort=-seq&sort=createdAt',
      'sort[0]=-seq&sort[1]=createdAt',
      `sort=${j(['-seq', 'createdAt'])}`,
      `sort=${j({ seq: 'DESC', createdAt: 'ASC' })}`,
      'sort[seq]=desc&sort[createdAt]=asc',
      `sort=${j([{ field: 'seq', dir: 'desc' }, { field: 'createdAt' }])}`,
      'sort[0][field]=seq&sort[0][order]=DESC&sort[1][field]=createdAt',
      '?sort=-seq%2CcreatedAt',
    );
    expect(meaning(parseListQuery('sort=-seq,createdAt'))).toMatchObject({ sort: [{ name: 'seq', dir: 'desc' }, { name: 'createdAt', dir: 'asc' }] });
  });

  test('fields, distinct and groupBy lists', () => {
    for (const name of ['fields', 'distinct', 'groupBy']) {
      same(`${name}=id,seq`, `${name}=id&${name}=seq`, `${name}[0]=id&${name}[1]=seq`, `${name}=${j(['id', 'seq'])}`, `${name}[]=id&${name}[]=seq`);
    }
  });

  test('filter: JSON and bracket style give one tree', () => {
    const tree = { and: [{ field: 'type', op: 'in', value: ['a', 'b'] }, { not: { field: 'seq', op: 'gt', value: '5' } }, { or: [{ field: 'tickIndex', op: 'isNull' }] }] };
    same(
      `filter=${j(tree)}`,
      'filter[and][0][field]=type&filter[and][0][op]=in&filter[and][0][value][0]=a&filter[and][0][value][1]=b' +
        '&filter[and][1][not][field]=seq&filter[and][1][not][op]=gt&filter[and][1][not][value]=5' +
        '&filter[and][2][or][0][field]=tickIndex&filter[and][2][or][0][op]=isNull',
      // percent-encoded brackets are the same parameters
      'filter%5Band%5D%5B0%5D%5Bfield%5D=type&filter%5Band%5D%5B0%5D%5Bop%5D=in&filter%5Band%5D%5B0%5D%5Bvalue%5D%5B0%5D=a&filter%5Band%5D%5B0%5D%5Bvalue%5D%5B1%5D=b' +
        '&filter[and][1][not][field]=seq&filter[and][1][not][op]=gt&filter[and][1][not][value]=5&filter[and][2][or][0][field]=tickIndex&filter[and][2][or][0][op]=isNull',
    );
  });

  test('predicates from brackets are marked (their values are strings whatever was meant), JSON ones not', () => {
    expect(parseListQuery('filter[field]=seq&filter[op]=gt&filter[value]=5').filter).toMatchObject({ kind: 'pred', value: '5', bracket: true });
    expect(parseListQuery(`filter=${j({ field: 'seq', op: 'gt', value: '5' })}`).filter).not.toHaveProperty('bracket');
  });

  test('bracket values are never comma-split', () => {
    const q = parseListQuery('filter[field]=type&filter[op]=in&filter[value][0]=a,b');
    expect(q.filter).toMatchObject({ kind: 'pred', value: ['a,b'] });
  });

  test('joins, cast and cte: JSON and bracket style', () => {
    same(
      `joins=${j([{ table: 'runs', alias: 'r', type: 'inner', on: { left: 'runId', op: 'eq', right: 'r.id' } }])}`,
      'joins[0][table]=runs&joins[0][alias]=r&joins[0][type]=inner&joins[0][on][left]=runId&joins[0][on][op]=eq&joins[0][on][right]=r.id',
    );
    same(`cast=${j({ seq: 'TEXT', 'data.n': 'numeric' })}`, 'cast[seq]=text&cast[data.n]=NUMERIC');
    same(
      `cte=${j({ a: { from: 'events', filter: { field: 'seq', op: 'gt', value: '1' }, fields: ['seq', 'type'], sort: ['-seq'], limit: 5 } })}`,
      'cte[a][from]=events&cte[a][filter][field]=seq&cte[a][filter][op]=gt&cte[a][filter][value]=1&cte[a][fields]=seq,type&cte[a][sort]=-seq&cte[a][limit]=5',
    );
  });

  test('advanced projection entries in bracket style', () => {
    same(
      `fields=${j(['seq', { fn: 'count', args: ['*'], as: 'n' }, { fn: 'date_trunc', args: ['day', 'createdAt'], as: 'd' }])}`,
      'fields[0]=seq&fields[1][fn]=count&fields[1][args][0]=*&fields[1][as]=n&fields[2][fn]=date_trunc&fields[2][args][0]=day&fields[2][args][1]=createdAt&fields[2][as]=d',
    );
  });

  test('other parameters are left to the route', () => {
    expect(parseListQuery('foo[a][b][c][d][e][f][g][h][i][j][k][l][m][n][o][p][q][r][s][t][u][v][w][x][y][z][aa]=1&limit=5').limit).toBe(5);
  });
});

describe('violations point at the parameter', () => {
  const cases: [string, string][] = [
    ['limit=abc', '/query/limit'],
    ['limit=10001', '/query/limit'],
    ['offset=1.5', '/query/offset'],
    ['count=1', '/query/count'],
    ['debug=yes', '/query/debug'],
    ['limit[a]=1', '/query/limit'],
    ['filter=not-json', '/query/filter'],
    ['filter={"field":', '/query/filter'],
    ['filter={"field":"seq","op":"eq"}&filter[field]=seq', '/query/filter'],
    [`filter=${j({ or: [{ field: 'seq', op: 'between', value: [1, 2, 3] }] })}`, '/query/filter/or/0/value'],
    [`filter=${j({ field: 'seq', op: 'in', value: 'a' })}`, '/query/filter/value'],
    [`filter=${j({ field: 'seq', op: 'eq', value: { a: 1 } })}`, '/query/filter/value'],
    [`filter=${j({ field: '', op: 'eq', value: 1 })}`, '/query/filter/field'],
    [`filter=${j([1, 2])}`, '/query/filter'],
    ['sort=', '/query/sort/0'],
    ['sort=seq,,type', '/query/sort/1'],
    [`sort=${j({ seq: 'sideways' })}`, '/query/sort/seq'],
    [`fields=${j([{ fn: 'lower', args: ['type'] }])}`, '/query/fields/0/as'],
    [`fields=${j([{ fn: 'lower', args: ['type'], as: '__proto__' }])}`, '/query/fields/0/as'],
    [`fields=${j([{ fn: 'lower', field: 'type', cast: 'TEXT', as: 'x' }])}`, '/query/fields/0'],
    [`joins=${j([{ table: 'runs', alias: 'r"; --', on: { left: 'a', right: 'r.b' } }])}`, '/query/joins/0/alias'],
    [`joins=${j([{ table: 'runs', alias: 'r', type: 'cross', on: { left: 'a', right: 'r.b' } }])}`, '/query/joins/0/type'],
    [`cte=${j({ 'bad name': { from: 'events' } })}`, '/query/cte/bad name'],
    [`cte=${j({ a: { from: 'events', limit: -1 } })}`, '/query/cte/a/limit'],
    ['cast={"seq":"VARCHAR(10); DROP"}', '/query/cast/seq'],
  ];
  for (const [query, pointer] of cases) {
    test(`${query} → ${pointer}`, () => {
      const p = problem(query);
      expect(p.status).toBe(400);
      expect(p.code).toBe('INVALID_QUERY');
      expect(p.errors?.map((e) => e.pointer)).toContain(pointer);
    });
  }

  test('every bad parameter is reported', () => {
    const p = problem('limit=x&offset=y&count=z&sort=');
    expect(p.errors?.map((e) => e.pointer).sort()).toEqual(['/query/count', '/query/limit', '/query/offset', '/query/sort/0']);
  });
});

describe('limits', () => {
  const pred = { field: 'seq', op: 'eq', value: 1 };
  const nest = (depth: number): unknown => (depth === 1 ? pred : { and: [nest(depth - 1)] });

  test('depth 8 passes, 9 is refused', () => {
    expect(() => parseListQuery(`filter=${j(nest(8))}`)).not.toThrow();
    expect(problem(`filter=${j(nest(9))}`).errors?.[0]?.pointer).toBe(`/query/filter${'/and/0'.repeat(8)}`);
  });

  test('200 predicates pass, 201 are refused', () => {
    expect(() => parseListQuery(`filter=${j({ or: Array.from({ length: 200 }, () => pred) })}`)).not.toThrow();
    expect(problem(`filter=${j({ or: Array.from({ length: 201 }, () => pred) })}`).errors?.[0]?.pointer).toBe('/query/filter/or/200');
  });

  test('in lists up to 1000 values', () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => i);
    expect(() => parseListQuery(`filter=${j({ field: 'seq', op: 'in', value: values(1000) })}`)).not.toThrow();
    expect(problem(`filter=${j({ field: 'seq', op: 'in', value: values(1001) })}`).errors?.[0]?.pointer).toBe('/query/filter/value');
  });

  test('bracket arrays beyond arrayLimit are refused, not turned into objects', () => {
    expect(problem('filter[field]=seq&filter[op]=in&filter[value][1000]=1').errors?.[0]?.pointer).toBe('/query/filter');
    const many = Array.from({ length: 1001 }, (_, i) => `filter[value][]=${i}`).join('&');
    const refused = problem(`filter[field]=seq&filter[op]=in&${many}`);
    expect(refused.status).toBe(400);
    // In the engine's words, not the query-string parser's.
    expect(refused.errors?.[0]?.message).toBe('filter exceeds a limit: a list holds more than 1000 values');
  });

  test('a filter given twice is refused as such, with the way to combine them', () => {
    const refused = problem(`filter=${j({ field: 'seq', op: 'eq', value: 1 })}&filter=${j({ field: 'type', op: 'eq', value: 'x' })}`);
    expect(refused.errors?.[0]).toEqual({ pointer: '/query/filter', message: 'given more than once; combine the trees in one filter with {"and": [...]}' });
  });

  test('bracket depth beyond the qs limit is refused (strictDepth)', () => {
    const refused = problem(`filter${'[not]'.repeat(LIMITS.bracketDepth + 1)}[field]=seq`);
    expect(refused.errors?.[0]?.pointer).toBe('/query/filter');
    expect(refused.errors?.[0]?.message).toBe(`filter exceeds a limit: nested deeper than ${LIMITS.bracketDepth} levels`);
  });

  test('too many parameters are refused (parameterLimit)', () => {
    const many = Array.from({ length: LIMITS.parameters + 1 }, (_, i) => `sort=f${i}`).join('&');
    expect(problem(many).status).toBe(400);
  });

  test('deeply nested JSON is refused before JSON.parse', () => {
    expect(problem(`filter=${'['.repeat(60_000)}`).errors?.[0]?.message).toContain('nested deeper');
    expect(problem(`filter=${encodeURIComponent('{"a":'.repeat(50))}1${'}'.repeat(50)}`).status).toBe(400);
  });

  test('oversized query strings and parameters are refused', () => {
    expect(problem(`filter=${'x'.repeat(LIMITS.queryLength + 1)}`).errors?.[0]?.pointer).toBe('/query');
    expect(problem(`filter=${j({ field: 'type', op: 'eq', value: 'x'.repeat(70_000) })}`).errors?.[0]?.pointer).toBe('/query/filter');
    expect(problem(`filter=${j({ field: 'type', op: 'eq', value: 'x'.repeat(5_000) })}`).errors?.[0]?.pointer).toBe('/query/filter/value');
  });

  test('total bound values are capped', () => {
    const big = Array.from({ length: 6 }, () => ({ field: 'seq', op: 'in', value: Array.from({ length: 1000 }, (_, i) => i) }));
    expect(problem(`filter=${j({ or: big })}`).errors?.[0]?.message).toContain('binds more than');
  });

  test('parsing a hostile input stays fast', () => {
    const inputs = [
      `filter=${'['.repeat(199_000)}`,
      `filter=${j({ or: Array.from({ length: 5000 }, () => pred) })}`,
      Array.from({ length: 3999 }, (_, i) => `filter[or][${i % 999}][field]=seq`).join('&'),
      `sort=${Array.from({ length: 30_000 }, () => 'a').join(',')}`,
    ];
    for (const input of inputs) {
      const started = performance.now();
      try {
        parseListQuery(input);
      } catch {
        // a 400 is the expected outcome
      }
      expect(performance.now() - started).toBeLessThan(250);
    }
  });
});
