// List queries on a SQLite file run on reader threads (src/db/sqlite/readers.ts): they see what
// has been committed, leave the serving thread free while they run, cannot write, and report the
// driver's errors as it would.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../../src/db/index.ts';
import { isDatabaseUnavailable } from '../../src/db/errors.ts';

let db: Database;

beforeAll(async () => {
  db = await openDatabase(`sqlite:${join(mkdtempSync(join(tmpdir(), 'readers-')), 'platform.db')}`);
  await db.write(async (q) => {
    q.run(sql`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL, data TEXT)`);
  });
});

afterAll(async () => {
  await db?.close();
});

/** A query that keeps a reader busy for a good while (a few hundred ms). */
const slowCount = sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) SELECT count(*) AS n FROM n`;

test('a list query sees every write committed before it, with the values the driver gives', async () => {
  for (let i = 1; i <= 3; i++) {
    await db.write(async (q) => {
      q.run(sql`INSERT INTO notes (id, body, data) VALUES (${i}, ${`note ${i}`}, ${i === 2 ? null : JSON.stringify({ i })})`);
    });
    const rows = await db.runner.all(sql`SELECT id, body, data FROM notes WHERE id <= ${i} ORDER BY id`);
    expect(rows).toEqual(Array.from({ length: i }, (_, k) => ({ id: k + 1, body: `note ${k + 1}`, data: k + 1 === 2 ? null : JSON.stringify({ i: k + 1 }) })));
  }
  // The same rows as the serving thread's own connection reads.
  expect(await db.runner.all(sql`SELECT * FROM notes ORDER BY id`)).toEqual(await db.all(sql`SELECT * FROM notes ORDER BY id`));
});

test('while a long list query runs, the serving thread goes on (a timer set after it fires first)', async () => {
  const order: string[] = [];
  const query = db.runner.all(slowCount).then((rows) => {
    order.push('query');
    return rows;
  });
  await new Promise<void>((resolve) => setTimeout(() => {
    order.push('timer');
    resolve();
  }, 0));
  expect(await query).toEqual([{ n: 3_000_000 }]);
  expect(order).toEqual(['timer', 'query']);
});

test('writes on the serving thread are not held up by a long list query', async () => {
  const order: string[] = [];
  const query = db.runner.all(slowCount).then(() => order.push('query'));
  await db.write(async (q) => {
    q.run(sql`INSERT INTO notes (id, body) VALUES (100, 'during')`);
  });
  order.push('write');
  await query;
  expect(order).toEqual(['write', 'query']);
  expect(await db.runner.all(sql`SELECT body FROM notes WHERE id = 100`)).toEqual([{ body: 'during' }]);
});

test('a reader cannot write: the statement fails and nothing changes', async () => {
  await expect(db.runner.all(sql`DELETE FROM notes`)).rejects.toThrow(/readonly|read-only|query_only/i);
  await expect(db.runner.all(sql`INSERT INTO notes (id, body) VALUES (200, 'sneaked')`)).rejects.toThrow(/readonly|read-only/i);
  expect(await db.all(sql`SELECT count(*) AS n FROM notes`)).toEqual([{ n: 4 }]);
});

test("the driver's errors come back with their code (a busy database is a 503, anything else is not)", async () => {
  const error = await db.runner.all(sql`SELECT * FROM no_such_table`).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message).toContain('no such table: no_such_table');
  expect((error as { code?: string }).code).toBe('SQLITE_ERROR');
  expect(isDatabaseUnavailable(error)).toBe(false);
  // The reader that answered it goes on serving.
  expect(await db.runner.all(sql`SELECT count(*) AS n FROM notes`)).toEqual([{ n: 4 }]);
});

test('queries spread over the readers: several long ones at once all answer, each with its own rows', async () => {
  const answers = await Promise.all([1, 2, 3, 4].map((k) => db.runner.all(sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${200_000 * k}) SELECT count(*) AS n FROM n`)));
  expect(answers).toEqual([1, 2, 3, 4].map((k) => [{ n: 200_000 * k }]));
});

test('closing waits for the list query in flight; afterwards a query is refused', async () => {
  const own = await openDatabase(`sqlite:${join(mkdtempSync(join(tmpdir(), 'readers-')), 'platform.db')}`);
  const query = own.runner.all(slowCount);
  await Bun.sleep(20);
  await own.close();
  expect(await query).toEqual([{ n: 3_000_000 }]);
  await expect(own.runner.all(sql`SELECT 1`)).rejects.toThrow('the database is closed');
});

test('an in-memory database keeps its single connection for list queries', async () => {
  const memory = await openDatabase('sqlite::memory:');
  await memory.write(async (q) => {
    q.run(sql`CREATE TABLE t (x INTEGER)`);
  });
  await memory.write(async (q) => {
    q.run(sql`INSERT INTO t VALUES (7)`);
  });
  expect(await memory.runner.all(sql`SELECT x FROM t`)).toEqual([{ x: 7 }]);
  await memory.close();
});
