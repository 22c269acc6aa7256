// The list engine's runner over postgres.js. Statements are not kept prepared (`prepare: false`):
// list queries vary per request, and named statements keyed by their text would grow without bound.
import type postgresjs from 'postgres';
import { postgres } from '../../query/dialect/index.ts';
import type { SqlRunner } from '../../query/model/index.ts';

/**
 * @param deadlineMs when set, a query not answered by then (waiting for a connection included,
 * which a server-side statement_timeout does not count) fails with code QUERY_TIMEOUT. It is not
 * cancelled: a cancel request can reach the server after the statement it meant has ended and
 * cancel the next one on that connection (seen here: a later query on it stalled or failed). A
 * query that already runs is ended by the server's own limit; one still queued runs once and is
 * discarded.
 */
export function postgresRunner(client: postgresjs.Sql, deadlineMs?: number): SqlRunner {
  return {
    dialect: 'postgres',
    async all(query) {
      const { sql, params } = postgres.toQuery(query);
      const pending = client.unsafe(sql, params as postgresjs.ParameterOrJSON<never>[], { prepare: false });
      if (deadlineMs === undefined) return [...(await pending)] as Record<string, unknown>[];
      let timer: Timer | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          pending.catch(() => {}); // settles later; this deadline has answered
          reject(Object.assign(new Error(`The list query ran past its time limit of ${deadlineMs} ms`), { code: 'QUERY_TIMEOUT' }));
        }, deadlineMs);
      });
      try {
        return [...(await Promise.race([pending, late]))] as Record<string, unknown>[];
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
