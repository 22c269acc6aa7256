// The shared behaviour table (cases.ts) on real data, once per database.
import { describe, expect, test } from 'bun:test';
import { runEventsResource } from '../../../src/core/query/resources/run-events.ts';
import { type Case, ERROR_CASES, EVENT_CASES, OPERATOR_CASES, THING_CASES } from './cases.ts';
import { plainResource, thingsResource } from './fixtures.ts';
import { EVENTS_OPTIONS, list, openAll } from './matrix.ts';

const dbs = await openAll();
const RESOURCES = { events: runEventsResource, things: thingsResource, plain: plainResource };

for (const db of dbs) {
  describe(`list engine on ${db.name}`, () => {
    const groups: [string, Case[]][] = [['operators', OPERATOR_CASES], ['things', THING_CASES], ['events', EVENT_CASES], ['errors', ERROR_CASES]];
    for (const [group, cases] of groups) {
      describe(group, () => {
        for (const c of cases) {
          test(c.name, async () => {
            const options = c.resource === 'events' ? EVENTS_OPTIONS : { debugAllowed: false };
            const outcome = await list(db, RESOURCES[c.resource], c.q, options);
            if (c.error !== undefined) {
              expect(outcome.ok).toBe(false);
              if (outcome.ok) return;
              expect(outcome.problem.status).toBe(400);
              expect(outcome.problem.code).toBe('INVALID_QUERY');
              expect(outcome.problem.errors?.map((e) => e.pointer)).toContain(c.error);
              return;
            }
            if (!outcome.ok) throw new Error(`unexpected ${outcome.problem.status}: ${JSON.stringify(outcome.problem.errors)}`);
            const { data, meta } = outcome.result;
            if (c.pick !== undefined) expect(data.map((row) => row[c.pick ?? ''])).toEqual(c.expect ?? []);
            if (c.rows) expect(data).toEqual(c.rows);
            if (c.meta) expect(meta).toMatchObject(c.meta);
          });
        }
      });
    }
  });
}
