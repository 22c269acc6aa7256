// The one way the platform opens a postgres.js client: the pool, the migration session and the
// invocation writer's connection all fail fast and come back fast. By default postgres.js waits up
// to 30 s for a connection and backs off reconnects up to 20 s, and queued queries wait it out, so
// an outage would stall every caller (readiness included) and its end would go unnoticed for seconds.
import postgres from 'postgres';

export function postgresClient(url: string, o: { schema: string; max: number; name: string; statementTimeoutMs?: number; idleSeconds?: number }): postgres.Sql {
  return postgres(url, {
    max: o.max,
    onnotice: () => {},
    connect_timeout: 5,
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 1),
    ...(o.idleSeconds ? { idle_timeout: o.idleSeconds } : {}),
    connection: {
      search_path: o.schema,
      application_name: o.name,
      ...(o.statementTimeoutMs ? { statement_timeout: o.statementTimeoutMs } : {}),
    },
  });
}
