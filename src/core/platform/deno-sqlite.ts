// SQLite on Deno: its node:sqlite (DatabaseSync) behind the seam's SqliteConnection, and drizzle
// over it through drizzle's better-sqlite3 session (drizzle has no node:sqlite driver; that
// session needs only prepare(), a statement's run/all/get/raw() and transaction()). The
// better-sqlite3 package itself is never loaded: the database is built here, as its driver would.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { SqliteConnection, SqliteOrm, SqliteValue } from './types.ts';

type Params = SqliteValue[] | [Record<string, SqliteValue>];
type Bindable = null | number | bigint | string | Uint8Array;

/** node:sqlite binds no booleans (bun:sqlite binds them as 1 and 0). */
const bindable = (value: SqliteValue): Bindable => (typeof value === 'boolean' ? (value ? 1 : 0) : value);

function bind(params: Params): Bindable[] | [Record<string, Bindable>] {
  const [first] = params;
  if (params.length === 1 && first !== null && typeof first === 'object' && !(first instanceof Uint8Array)) {
    const named: Record<string, Bindable> = {};
    for (const [key, value] of Object.entries(first)) named[key] = bindable(value);
    return [named];
  }
  return (params as SqliteValue[]).map(bindable);
}

/** A statement as bun:sqlite and better-sqlite3 shape it; `raw()` gives rows as arrays (drizzle's selects). */
class Statement {
  constructor(private readonly statement: StatementSync) {}

  all(...params: Params): unknown[] {
    return this.statement.all(...(bind(params) as Bindable[]));
  }

  get(...params: Params): unknown {
    return this.statement.get(...(bind(params) as Bindable[]));
  }

  run(...params: Params): { changes: number; lastInsertRowid: number | bigint } {
    const result = this.statement.run(...(bind(params) as Bindable[]));
    return { changes: Number(result.changes), lastInsertRowid: result.lastInsertRowid };
  }

  raw(): { all(...params: Params): unknown[]; get(...params: Params): unknown } {
    const arrays = <T>(read: () => T): T => {
      this.statement.setReturnArrays(true);
      try {
        return read();
      } finally {
        this.statement.setReturnArrays(false);
      }
    };
    return { all: (...params) => arrays(() => this.all(...params)), get: (...params) => arrays(() => this.get(...params)) };
  }

  /** node:sqlite finalizes a statement when it is collected or its database closes. */
  finalize(): void {}
}

class Connection implements SqliteConnection {
  private readonly cached = new Map<string, Statement>();
  private depth = 0;

  constructor(private readonly db: DatabaseSync) {}

  exec(sql: string): void {
    this.db.exec(sql);
  }

  prepare(sql: string): Statement {
    return new Statement(this.db.prepare(sql));
  }

  query(sql: string): Statement {
    let statement = this.cached.get(sql);
    if (!statement) this.cached.set(sql, (statement = this.prepare(sql)));
    return statement;
  }

  /** BEGIN … COMMIT, or a savepoint inside a transaction already open (as bun:sqlite and better-sqlite3 nest). */
  transaction<T>(fn: () => T, behavior = 'deferred'): () => T {
    return () => {
      const savepoint = this.depth > 0 ? `tx${this.depth}` : null;
      this.db.exec(savepoint ? `SAVEPOINT ${savepoint}` : `BEGIN ${behavior.toUpperCase()}`);
      this.depth++;
      try {
        const result = fn();
        this.depth--;
        this.db.exec(savepoint ? `RELEASE ${savepoint}` : 'COMMIT');
        return result;
      } catch (error) {
        this.depth--;
        this.db.exec(savepoint ? `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}` : 'ROLLBACK');
        throw error;
      }
    };
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}

export function openSqlite(file: string, options: { readonly?: boolean }): SqliteConnection {
  return new Connection(new DatabaseSync(file, { readOnly: options.readonly ?? false }));
}

/** better-sqlite3's transaction(fn): a function with one variant per BEGIN behaviour. */
function betterTransaction(connection: Connection) {
  return <T>(fn: (arg: unknown) => T) => {
    const variant = (behavior: string) => (arg: unknown) => connection.transaction(() => fn(arg), behavior)();
    return { deferred: variant('deferred'), immediate: variant('immediate'), exclusive: variant('exclusive') };
  };
}

export async function sqliteOrm<S extends Record<string, unknown>>(connection: SqliteConnection, schema: S, migrationsFolder: string): Promise<SqliteOrm<S>> {
  const [{ BetterSQLiteSession }, { BaseSQLiteDatabase, SQLiteSyncDialect }, { createTableRelationsHelpers, extractTablesRelationalConfig }, { readMigrationFiles }] =
    await Promise.all([import('drizzle-orm/better-sqlite3/session'), import('drizzle-orm/sqlite-core'), import('drizzle-orm/relations'), import('drizzle-orm/migrator')]);
  // A connection that this platform's open() made is a Connection.
  const own = connection as Connection;
  const client = { prepare: (sql: string) => own.prepare(sql), transaction: betterTransaction(own) };
  const dialect = new SQLiteSyncDialect();
  const tables = extractTablesRelationalConfig(schema, createTableRelationsHelpers);
  const relational = { fullSchema: schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap };
  const session = new BetterSQLiteSession(client as never, dialect, relational as never, {});
  const orm = new BaseSQLiteDatabase('sync', dialect, session as never, relational as never) as unknown as SqliteOrm<S>;
  dialect.migrate(readMigrationFiles({ migrationsFolder }), session as never, { migrationsFolder });
  return orm;
}
