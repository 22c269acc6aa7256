// The list engine's runner on a single SQLite connection (an in-memory database; a file's list
// queries run on reader threads, ./readers.ts). Statements are prepared per call and not cached:
// list queries vary per request, and a cache keyed by their text would grow without bound.
import { sqlite } from '../../query/dialect/index.ts';
import type { SqlRunner } from '../../query/model/index.ts';
import type { SqliteConnection, SqliteValue } from '../../platform/index.ts';

export function sqliteRunner(db: SqliteConnection): SqlRunner {
  return {
    dialect: 'sqlite',
    async all(query) {
      const { sql, params } = sqlite.toQuery(query);
      const statement = db.prepare(sql);
      try {
        return statement.all(...(params as SqliteValue[])) as Record<string, unknown>[];
      } finally {
        statement.finalize();
      }
    },
  };
}
