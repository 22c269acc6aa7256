// Stock SqlRunners over bun:sqlite and postgres.js. Statements are prepared per call and not
// cached: list queries vary per request, and a cache keyed by their text would grow without
// bound. An app using drizzle's db objects can write the same few lines around db.all/execute.
import type { Database, SQLQueryBindings } from 'bun:sqlite';
import type postgresjs from 'postgres';
import { postgres } from './dialect/postgres.ts';
import { sqlite } from './dialect/sqlite.ts';
import type { SqlRunner } from './types.ts';

export function sqliteRunner(db: Database): SqlRunner {
  return {
    dialect: 'sqlite',
    async all(query) {
      const { sql, params } = sqlite.toQuery(query);
      const statement = db.prepare(sql);
      try {
        return statement.all(...(params as SQLQueryBindings[])) as Record<string, unknown>[];
      } finally {
        statement.finalize();
      }
    },
  };
}

export function postgresRunner(client: postgresjs.Sql): SqlRunner {
  return {
    dialect: 'postgres',
    async all(query) {
      const { sql, params } = postgres.toQuery(query);
      const rows = await client.unsafe(sql, params as postgresjs.ParameterOrJSON<never>[], { prepare: false });
      return [...rows] as Record<string, unknown>[];
    },
  };
}
