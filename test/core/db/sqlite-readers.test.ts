// List queries on a SQLite file run on reader threads (src/core/db/sqlite/readers.ts): they see what
// has been committed, leave the serving thread free while they run, cannot write, and report the
// driver's errors as it would.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import { readdirSync, rmSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../../../src/core/db/index.ts';
import { SqliteReaders } from '../../../src/core/db/sqlite/readers.ts';
import { isDatabaseUnavailable } from '../../../src/core/db/errors.ts';
import { tempDir } from '../../helpers/temp.ts';

let db: Database;

beforeAll(async () => {
  db = await openDatabase(`sqlite:${join(tempDir('readers'), 'platform.db')}`);
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

test('one long list query does not hold up the others: a short one sent after it is answered first', async () => {
  const order: string[] = [];
  const long = db.runner.all(slowCount).then(() => order.push('long'));
  const short = db.runner.all(sql`SELECT count(*) AS n FROM notes`).then((rows) => {
    order.push('short');
    return rows;
  });
  expect(await short).toEqual([{ n: 4 }]);
  await long;
  expect(order).toEqual(['short', 'long']);
});

/** OS threads of this process. */
const threads = () => readdirSync('/proc/self/task').length;
/** A query that keeps a reader busy for seconds. */
const verySlow = sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30000000) SELECT count(*) AS n FROM n`;

test('past its time limit a query is answered QUERY_TIMEOUT; runaway threads never exceed the two readers, and the readers serve again after', async () => {
  const file = join(tempDir('readers'), 'platform.db');
  (await openDatabase(`sqlite:${file}`)).close();
  const readers = new SqliteReaders(file, { timeoutMs: 300, closeWaitMs: 100 });
  expect(await readers.all(sql`SELECT 1 AS one`)).toEqual([{ one: 1 }]); // a reader is up
  const before = threads();
  const outcomes = await Promise.allSettled([1, 2, 3, 4].map(() => readers.all(verySlow)));
  for (const outcome of outcomes) {
    expect(outcome.status).toBe('rejected');
    expect((outcome as PromiseRejectedResult).reason.code).toBe('QUERY_TIMEOUT');
    expect((outcome as PromiseRejectedResult).reason.message).toBe('The list query ran past its time limit of 300 ms');
  }
  expect(threads()).toBeLessThanOrEqual(before + 2);
  // Once the stopped threads end (their statements run out), queries are served again.
  const later = await (async () => {
    for (;;) {
      try {
        return await readers.all(sql`SELECT 2 AS two`);
      } catch (error) {
        if ((error as { code?: string }).code !== 'QUERY_TIMEOUT') throw error;
      }
    }
  })();
  expect(later).toEqual([{ two: 2 }]);
  await readers.close();
}, 60_000);

test('a file that cannot be opened fails each query with the reason, and leaves no thread behind', async () => {
  const dir = tempDir('readers');
  const readers = new SqliteReaders(join(dir, 'missing', 'platform.db'));
  const before = threads();
  for (let i = 0; i < 10; i++) {
    await expect(readers.all(sql`SELECT 1`)).rejects.toThrow(/list-query reader: .*(unable to open|no such file)/i);
  }
  await Bun.sleep(200); // terminated threads end
  expect(threads()).toBeLessThanOrEqual(before + 2);
  await readers.close();
  rmSync(dir, { recursive: true, force: true });
});

test('closing does not wait long for a runaway query: it is answered and its thread stopped', async () => {
  const file = join(tempDir('readers'), 'platform.db');
  (await openDatabase(`sqlite:${file}`)).close();
  const readers = new SqliteReaders(file, { closeWaitMs: 100 });
  const query = readers.all(verySlow).catch((e: unknown) => e);
  await Bun.sleep(50);
  const order: string[] = [];
  await readers.close().then(() => order.push('closed'));
  const outcome = await query;
  order.push('query');
  expect(order).toEqual(['closed', 'query']);
  expect((outcome as Error).message).toBe('the database is closed');
});

test('closing waits for the list query in flight; afterwards a query is refused', async () => {
  const file = join(tempDir('readers'), 'platform.db');
  await (await openDatabase(`sqlite:${file}`)).close();
  // A close wait no loaded machine reaches (the default, 2 s, is what a slow count can take under load).
  const readers = new SqliteReaders(file, { closeWaitMs: 60_000 });
  const query = readers.all(slowCount);
  await Bun.sleep(20);
  await readers.close();
  expect(await query).toEqual([{ n: 3_000_000 }]);
  await expect(readers.all(sql`SELECT 1`)).rejects.toThrow('the database is closed');
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
