// Opens every test database once per test file, seeded with the fixture, so one table of cases
// runs against both dialects (STYLE 6).
import { afterAll } from 'bun:test';
import { ProblemError } from '../../../src/core/http/problem.ts';
import { parseListQuery } from '../../../src/core/query/parse/index.ts';
import type { ListResource } from '../../../src/core/query/model/resource.ts';
import { type ListResult, type RunListOptions, runList } from '../../../src/core/query/run.ts';
import { type TestDb, openPostgres, openSqlite } from './db.ts';
import { R1, seed } from './fixtures.ts';

export async function openAll(): Promise<TestDb[]> {
  const dbs: TestDb[] = [openSqlite()];
  const pg = await openPostgres();
  if (pg) dbs.push(pg);
  for (const db of dbs) await seed(db);
  afterAll(async () => {
    for (const db of dbs) await db.close();
  });
  return dbs;
}

/** The events route's scopes: run R1, and the runs of its tree. */
export const EVENTS_OPTIONS: RunListOptions = {
  scope: { field: 'runId', op: 'eq', value: R1 },
  tableScopes: { runs: { field: 'rootRunId', op: 'eq', value: R1 } },
  debugAllowed: true,
};

export type Outcome = { ok: true; result: ListResult } | { ok: false; problem: ProblemError };

/** Parses and runs; a ProblemError is an outcome, anything else a failure of the test. */
export async function list(db: TestDb, resource: ListResource, query: string, options: RunListOptions = { debugAllowed: true }): Promise<Outcome> {
  try {
    return { ok: true, result: await runList(db.runner, resource, parseListQuery(query), options) };
  } catch (error) {
    if (error instanceof ProblemError) return { ok: false, problem: error };
    throw error;
  }
}

/** JSON-encodes an object for a query parameter. */
export const j = (value: unknown) => encodeURIComponent(JSON.stringify(value));
