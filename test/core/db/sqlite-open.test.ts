// Where the SQLite file goes: a directory the platform makes is 0700; one that exists keeps its
// mode (it may be /tmp); the database and its WAL and shared-memory files are 0600 either way.
import { expect, test } from 'bun:test';
import { chmodSync, readdirSync, statSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { join } from 'node:path';
import { openDatabase } from '../../../src/core/db/index.ts';
import { tempDir } from '../../helpers/temp.ts';

const mode = (path: string) => statSync(path).mode & 0o7777;

test('an existing shared directory keeps its mode; the database files are 0600', async () => {
  const shared = tempDir('sqlite-shared');
  chmodSync(shared, 0o1777); // like /tmp
  const file = join(shared, 'platform.db');
  const db = await openDatabase(`sqlite:${file}`);
  expect(mode(shared)).toBe(0o1777);
  for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(mode(path)).toBe(0o600);
  await db.close();
});

test('a directory the platform makes is 0700', async () => {
  const parent = tempDir('sqlite-made');
  const dir = join(parent, 'data', 'nested');
  const db = await openDatabase(`sqlite:${join(dir, 'platform.db')}`);
  expect(mode(dir)).toBe(0o700);
  expect(mode(join(dir, 'platform.db'))).toBe(0o600);
  await db.close();
});

test("an existing database file keeps its group's access and loses only everyone's", async () => {
  const dir = tempDir('sqlite-mode');
  const file = join(dir, 'platform.db');
  await (await openDatabase(`sqlite:${file}`)).close();
  chmodSync(file, 0o644);
  const db = await openDatabase(`sqlite:${file}`);
  expect(mode(file)).toBe(0o640);
  await db.close();
  chmodSync(file, 0o640);
  await (await openDatabase(`sqlite:${file}`)).close();
  expect(mode(file)).toBe(0o640);
});

test('a clean close leaves only the database file: the list readers and the main connection close for real', async () => {
  const dir = tempDir('sqlite-close');
  const file = join(dir, 'platform.db');
  const db = await openDatabase(`sqlite:${file}`);
  await db.write(async (q) => {
    q.run(sql`CREATE TABLE t (x INTEGER)`);
    q.run(sql`INSERT INTO t VALUES (1)`);
  });
  // Both readers hold a connection.
  expect(await Promise.all([db.runner.all(sql`SELECT x FROM t`), db.runner.all(sql`SELECT count(*) AS n FROM t`)])).toEqual([[{ x: 1 }], [{ n: 1 }]]);
  await db.close();
  expect(readdirSync(dir)).toEqual(['platform.db']);
});
