// SQLite (the platform's driver) behind the Database interface: WAL, foreign keys, busy timeout,
// migrations at open.
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SQL } from 'drizzle-orm';
import { sqliteTables as tables } from '../schema/index.ts';
import type { Database } from '../index.ts';
import { Mutex } from '../../lib/index.ts';
import { platform } from '../../platform/index.ts';
import { SqliteReaders } from './readers.ts';
import { sqliteRunner } from './runner.ts';

const MIGRATIONS = join(import.meta.dirname, '..', 'migrations', 'sqlite');

/**
 * Opens (and migrates) a SQLite database. `file` is a path or `:memory:`.
 * The connection is single and synchronous, so a transaction that awaits between statements
 * would let other requests' statements slip into it: every use goes through one mutex.
 */
export async function openSqlite(file: string): Promise<Database> {
  if (file !== ':memory:') {
    // Executor hosts run as another user and must not read the database. A directory made here
    // is 0700; one that exists is left as it is (it may be /tmp, or a home directory: changing
    // those broke every other user of them). A new file is 0600 before SQLite first opens it, and
    // SQLite gives its WAL and shared-memory files the database file's mode.
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    closeSync(openSync(file, 'a', 0o600));
    // Hosts are neither its owner nor in its group: an existing file keeps what its owner gave
    // the group (a backup group, say) and loses only what it gave everyone.
    const mode = statSync(file).mode & 0o777;
    if (mode & 0o007) chmodSync(file, mode & ~0o007);
  }
  const client = platform.sqlite.open(file, { create: true, strict: true });
  client.exec('PRAGMA journal_mode = WAL');
  client.exec('PRAGMA synchronous = NORMAL');
  client.exec('PRAGMA foreign_keys = ON');
  client.exec('PRAGMA busy_timeout = 5000');
  const orm = await platform.sqlite.orm(client, tables, MIGRATIONS);

  const mutex = new Mutex();
  // List queries on a file run on reader threads; an in-memory database has one connection only.
  const inline = sqliteRunner(client);
  const readers = file === ':memory:' ? null : new SqliteReaders(file);
  return {
    runner: readers ?? { dialect: 'sqlite', all: (query) => mutex.run(() => inline.all(query)) },
    location: file === ':memory:' ? null : { url: `sqlite:${file}` },
    dialect: 'sqlite',
    t: tables,
    read: (fn) => mutex.run(() => fn(orm)),
    write: (fn) =>
      mutex.run(async () => {
        client.exec('BEGIN IMMEDIATE');
        try {
          const result = await fn(orm);
          client.exec('COMMIT');
          return result;
        } catch (error) {
          client.exec('ROLLBACK');
          throw error;
        }
      }),
    all: (query: SQL) => mutex.run(() => orm.all<Record<string, unknown>>(query)),
    ping: async () => {
      try {
        client.query('SELECT 1').get();
        return true;
      } catch {
        return false;
      }
    },
    close: async () => {
      await readers?.close();
      // Closed for real, so that the last connection removes the WAL and shared-memory files:
      // close() without throwOnError leaves it open while drizzle's statements stay prepared.
      await mutex.run(() => {
        try {
          client.close(true);
        } catch {
          client.close();
        }
      });
    },
  };
}
