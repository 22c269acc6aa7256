// The storage interface every repository uses; one implementation per dialect (./sqlite, ./postgres).
import type { SQL } from 'drizzle-orm';
import type { sqliteTables as tables } from './schema/index.ts';
import type { SqlRunner } from '../query/model/index.ts';
import type { SqliteOrm } from '../platform/index.ts';

type Dialect = 'sqlite' | 'postgres';
export type Tables = typeof tables;

/**
 * The query builder handed to repositories. It is typed as the SQLite builder; on Postgres the
 * object is drizzle's Postgres builder over identically named tables (see ./schema/pg.ts).
 * Repositories therefore stick to the subset both share: select/insert/update/delete builders,
 * `.returning()`, `onConflictDoNothing/DoUpdate`, awaited (never `.all()/.get()/.run()`).
 */
export type Orm = SqliteOrm<Tables>;

/** How to open another connection to the same database (a writer thread does); null for `:memory:`. */
export interface DatabaseLocation {
  url: string;
  /** Postgres schema the connection uses. */
  schema?: string;
}

export interface Database {
  readonly dialect: Dialect;
  readonly location: DatabaseLocation | null;
  /** Table objects of this dialect, typed as the SQLite ones. */
  readonly t: Tables;
  /** Runs reads (or a single atomic write statement). On SQLite, serialised with transactions. */
  read<T>(fn: (q: Orm) => Promise<T>): Promise<T>;
  /** Runs `fn` in one transaction; rolled back when it throws. Never nest, never await non-database work inside. */
  write<T>(fn: (q: Orm) => Promise<T>): Promise<T>;
  /** Raw SQL: rows as the driver returns them. */
  all(query: SQL): Promise<Record<string, unknown>[]>;
  /** The list engine's runner over this database (on a SQLite file, on reader threads: ./sqlite/readers.ts). */
  readonly runner: SqlRunner;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
