// On Postgres, list queries have connections of their own with a server-side statement timeout
// (src/core/db/postgres/open.ts): heavy lists cannot take the connections that credential lookups and
// writes need, and one that runs too long is cut off and answered 503 QUERY_TIMEOUT.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { openPostgres } from '../../../src/core/db/postgres/open.ts';
import type { Database } from '../../../src/core/db/index.ts';
import { ProblemError } from '../../../src/core/http/problem.ts';
import { runList } from '../../../src/core/query/run.ts';
import { parseListQuery } from '../../../src/core/query/parse/index.ts';
import { auditResource } from '../../../src/audit/list.ts';
import { databaseCases, dropPostgresSchema, POSTGRES_URL } from '../../helpers/databases.ts';

describe.each(databaseCases().filter((c) => c.name === 'postgres'))('list queries on $name', (c) => {
  let db: Database;
  beforeAll(async () => {
    db = await openPostgres(POSTGRES_URL, { schema: c.postgresSchema!, listTimeoutMs: 1_500 });
    // postgres.js opens connections as they are needed, and queues on the open ones meanwhile:
    // the timings below assume all four list connections are open.
    for (let i = 0; i < 2; i++) await Promise.all(Array.from({ length: 8 }, () => db.runner.all(sql`SELECT pg_sleep(0.05)`)));
  });
  afterAll(async () => {
    await db?.close();
    await dropPostgresSchema(c.postgresSchema);
  });

  test('a list query past the time limit fails (the server cuts it off, or the deadline answers first) and no longer runs there', async () => {
    const started = Date.now();
    const error = await db.runner.all(sql`SELECT pg_sleep(5) AS cut_off_list_query`).catch((e: unknown) => e);
    expect(['57014', 'QUERY_TIMEOUT']).toContain(String((error as { code?: string }).code));
    expect(Date.now() - started).toBeLessThan(5_000);
    await Bun.sleep(200);
    const running = await db.all(sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%cut_off_list_query%' AND state = 'active' AND pid <> pg_backend_pid()`);
    expect(running).toEqual([{ n: 0 }]);
    // The connection is usable again at once.
    expect(await db.runner.all(sql`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  });

  test("other work does not wait for list queries, however many (more than the main pool's 10 connections)", async () => {
    const order: string[] = [];
    const lists = Array.from({ length: 12 }, () => db.runner.all(sql`SELECT pg_sleep(0.3)`).then(() => order.push('list')));
    await Bun.sleep(100);
    expect(await db.all(sql`SELECT 2 AS two`)).toEqual([{ two: 2 }]);
    order.push('other');
    await Promise.all(lists);
    expect(order[0]).toBe('other');
    expect(order.filter((o) => o === 'list')).toHaveLength(12);
  });

  test('a list query still waiting for a list connection at the time limit is answered QUERY_TIMEOUT then, not left waiting', async () => {
    // Four run for 1 s; the four queued behind them would end at ~2 s, past the 1.5 s limit.
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => db.runner.all(sql`SELECT pg_sleep(1)`)));
    const codes = outcomes.map((o) => (o.status === 'fulfilled' ? 'ok' : (o.reason as { code?: string }).code));
    expect(codes.filter((c) => c === 'ok')).toHaveLength(4);
    expect(codes.filter((c) => c === 'QUERY_TIMEOUT')).toHaveLength(4);
    expect(await db.runner.all(sql`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  });

  test('the statement limit is only on list connections: other statements may run longer', async () => {
    expect(await db.all(sql`SELECT pg_sleep(2), 3 AS three`)).toEqual([{ pg_sleep: '', three: 3 }]);
  });
});

describe.each(databaseCases().filter((c) => c.name === 'postgres'))('a heavy list on $name', (c) => {
  let db: Database;
  beforeAll(async () => {
    db = await openPostgres(POSTGRES_URL, { schema: c.postgresSchema!, listTimeoutMs: 25 });
    // 600,000 invocation rows: counting those a filter on a JSON path picks takes ~150 ms here, a default page ~1 ms.
    await db.all(sql`INSERT INTO audit (id, at, kind, action, resource_type, status, details)
      SELECT gen_random_uuid(), now() - make_interval(secs => i), 'invocation', 'endpoint.invoke', 'endpoint', 200, jsonb_build_object('n', i)
      FROM generate_series(1, 600000) AS i`);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    await dropPostgresSchema(c.postgresSchema);
  });

  test('a list query past the time limit is answered 503 QUERY_TIMEOUT; a light one is served', async () => {
    const filter = encodeURIComponent(JSON.stringify({ field: 'details.n', op: 'eq', value: -1 }));
    const error = await runList(db.runner, auditResource, parseListQuery(`count=true&filter=${filter}`), { debugAllowed: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemError);
    expect((error as ProblemError).status).toBe(503);
    expect((error as ProblemError).code).toBe('QUERY_TIMEOUT');
    const page = await runList(db.runner, auditResource, parseListQuery('limit=2'), { debugAllowed: false });
    expect(page.data).toHaveLength(2);
  });
});
