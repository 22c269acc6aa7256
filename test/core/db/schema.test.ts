// The two dialect schemas must describe the same tables and columns, and migrate cleanly.
import { expect, test } from 'bun:test';
import { getTableConfig as sqliteConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { getTableConfig as pgConfig, PgTable } from 'drizzle-orm/pg-core';
import * as sqlite from '../../../src/core/db/schema/sqlite.ts';
import * as pg from '../../../src/core/db/schema/pg.ts';

test('SQLite and Postgres schemas have the same tables, columns, nullability and indexes', () => {
  const shape = (cfg: { name: string; columns: { name: string; notNull: boolean; primary: boolean }[]; indexes: { config: { name?: string; unique?: boolean } }[] }) => ({
    name: cfg.name,
    columns: cfg.columns.map((c) => `${c.name}:${c.notNull}:${c.primary}`).sort(),
    indexes: cfg.indexes.map((i) => `${i.config.name}:${Boolean(i.config.unique)}`).sort(),
  });
  const sqliteTables = Object.values(sqlite).filter((t) => t instanceof SQLiteTable).map((t) => shape(sqliteConfig(t as SQLiteTable)));
  const pgTables = Object.values(pg).filter((t) => t instanceof PgTable).map((t) => shape(pgConfig(t as PgTable)));
  expect(sqliteTables.length).toBeGreaterThan(10);
  expect(pgTables).toEqual(sqliteTables);
});
