// The run-events resource as a route uses it: scopes that keep other runs out of every path
// (relations, joins, CTEs), debug output and its refusal, and how a conversion failure surfaces.
import { describe, expect, test } from 'bun:test';
import { ProblemError } from '../../../src/core/http/problem.ts';
import { DEBUG_LIMITS } from '../../../src/core/query/debug.ts';
import { parseListQuery } from '../../../src/core/query/parse/index.ts';
import { runEventsResource } from '../../../src/core/query/resources/run-events.ts';
import { runList } from '../../../src/core/query/run.ts';
import { R1, R3 } from './fixtures.ts';
import { EVENTS_OPTIONS, j, list, openAll } from './matrix.ts';

const dbs = await openAll();

for (const db of dbs) {
  describe(`run events on ${db.name}`, () => {
    test('debug needs permission: 403 DEBUG_FORBIDDEN', async () => {
      const outcome = await list(db, runEventsResource, 'debug=true', { ...EVENTS_OPTIONS, debugAllowed: false });
      expect(outcome.ok).toBe(false);
      if (outcome.ok) return;
      expect(outcome.problem.status).toBe(403);
      expect(outcome.problem.code).toBe('DEBUG_FORBIDDEN');
    });

    test('debug=false is fine for anyone, and adds nothing', async () => {
      const outcome = await list(db, runEventsResource, 'debug=false&limit=1', { ...EVENTS_OPTIONS, debugAllowed: false });
      expect(outcome.ok && outcome.result.debug).toBeUndefined();
    });

    test('debug returns the SQL, params and an EXPLAIN plan without running ANALYZE', async () => {
      const outcome = await list(db, runEventsResource, `debug=true&count=true&${`filter=${j({ field: 'type', op: 'eq', value: 'run.queued' })}`}`, EVENTS_OPTIONS);
      if (!outcome.ok) throw outcome.problem;
      const debug = outcome.result.debug;
      expect(debug?.sql).toContain('FROM "events"');
      expect(debug?.params).toContain('run.queued');
      expect(debug?.params).toContain(R1);
      expect(debug?.count?.sql).toContain('COUNT(*)');
      const plan = JSON.stringify(debug?.plan);
      if (db.name === 'sqlite') expect(plan).toContain('USING INDEX');
      else {
        expect(plan).toContain('"Node Type"');
        expect(plan).not.toContain('Actual Rows'); // ANALYZE would add actual row counts
      }
      expect(debug?.truncated).toBe(false);
    });

    test('debug output is bounded', async () => {
      const values = Array.from({ length: 1000 }, (_, i) => `${'v'.repeat(40)}${i}`);
      const outcome = await list(db, runEventsResource, `debug=true&filter=${j({ field: 'type', op: 'in', value: values })}`, EVENTS_OPTIONS);
      if (!outcome.ok) throw outcome.problem;
      const debug = outcome.result.debug;
      expect(debug?.truncated).toBe(true);
      expect((debug?.params ?? []).length).toBeLessThanOrEqual(DEBUG_LIMITS.params);
      expect(debug?.sql.length).toBeLessThanOrEqual(DEBUG_LIMITS.sql + 1);
      const plan = debug?.plan;
      expect(typeof plan === 'string' ? plan.length : JSON.stringify(plan).length).toBeLessThanOrEqual(DEBUG_LIMITS.plan + 1);
    });

    test('other runs never appear: base, relations, joins, CTEs', async () => {
      const queries = [
        '',
        `filter=${j({ field: 'runId', op: 'eq', value: R3 })}`,
        `filter=${j({ or: [{ field: 'runId', op: 'eq', value: R3 }, { not: { field: 'runId', op: 'eq', value: R3 } }] })}`,
        `joins=${j([{ table: 'runs', alias: 'r', type: 'inner', on: { left: 'runId', op: 'ne', right: 'r.id' } }])}&fields=seq,r.id,r.input`,
        `cte=${j({ all: { from: 'events', fields: ['runId', 'data'] } })}&joins=${j([{ table: 'all', alias: 'a', type: 'inner', on: { left: 'seq', op: 'gte', right: 'a.seq' } }])}&fields=seq,a.runId,a.data`,
        `cte=${j({ rs: { from: 'runs', fields: ['id', 'input', 'workspaceId'] } })}&joins=${j([{ table: 'rs', alias: 'x', type: 'inner', on: { left: 'seq', op: 'gt', right: 'x.id' } }])}`,
        `cte=${j({ rs: { from: 'runs', fields: ['id', 'input'] } })}&joins=${j([{ table: 'rs', alias: 'x', type: 'left', on: { left: 'runId', op: 'ne', right: 'x.id' } }])}&fields=seq,x.id,x.input`,
      ];
      for (const q of queries) {
        const outcome = await list(db, runEventsResource, q, EVENTS_OPTIONS);
        const text = JSON.stringify(outcome.ok ? outcome.result.data : outcome.problem.toJSON());
        expect(text).not.toContain(R3);
        expect(text).not.toContain('other-workspace');
        expect(text).not.toContain('secret');
      }
    });

    test('a table read without a scope from the route fails closed (server error, not data)', async () => {
      const q = parseListQuery(`joins=${j([{ table: 'runs', alias: 'r', type: 'left', on: { left: 'runId', op: 'eq', right: 'r.id' } }])}`);
      await expect(runList(db.runner, runEventsResource, q, { scope: EVENTS_OPTIONS.scope ?? { field: 'runId', op: 'isNull' }, debugAllowed: false })).rejects.toThrow(/no table scope/);
      const cte = parseListQuery(`cte=${j({ e: { from: 'events' } })}`);
      await expect(runList(db.runner, runEventsResource, cte, { debugAllowed: false })).rejects.toThrow(/no table scope/);
      // 'all' is an explicit decision to expose the table
      const ok = await runList(db.runner, runEventsResource, q, { ...EVENTS_OPTIONS, tableScopes: { runs: 'all' } });
      expect(ok.data).toHaveLength(12);
    });

    test('a value that does not convert', async () => {
      const q = `cast=${j({ type: 'INTEGER' })}&fields=seq,type&limit=1`;
      const outcome = await list(db, runEventsResource, q, EVENTS_OPTIONS);
      if (db.name === 'postgres') {
        // Postgres refuses the conversion: a 400 for the client, never a 500.
        expect(outcome.ok).toBe(false);
        if (!outcome.ok) expect([outcome.problem.status, outcome.problem.code]).toEqual([400, 'INVALID_QUERY']);
      } else {
        // SQLite converts leniently (CAST('run.queued' AS INTEGER) is 0).
        expect(outcome.ok && outcome.result.data).toEqual([{ seq: 1, type: 0 }]);
      }
    });

    test('problems serialize as problem+json bodies', async () => {
      const outcome = await list(db, runEventsResource, `filter=${j({ field: 'nope', op: 'eq', value: 1 })}&limit=x`, EVENTS_OPTIONS);
      expect(outcome.ok).toBe(false);
      if (outcome.ok) return;
      expect(outcome.problem).toBeInstanceOf(ProblemError);
      expect(outcome.problem.toJSON('oid-1')).toMatchObject({
        status: 400,
        code: 'INVALID_QUERY',
        errors: [{ pointer: '/query/limit' }],
        oid: 'oid-1',
      });
    });
  });
}
