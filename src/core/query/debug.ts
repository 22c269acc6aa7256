// debug=true output: compiled SQL, bound params and the planner's EXPLAIN (never ANALYZE, so
// nothing runs), each cut to a bounded size so a large query cannot inflate the response.
import type { SQL } from 'drizzle-orm';
import type { SqlDialect } from './dialect/index.ts';
import type { SqlRunner } from './model/index.ts';

export const DEBUG_LIMITS = { sql: 16_384, param: 256, params: 200, plan: 32_768 } as const;

export interface DebugInfo {
  sql: string;
  params: unknown[];
  plan: unknown;
  truncated: boolean;
}

const clip = (text: string, max: number): [string, boolean] => (text.length > max ? [`${text.slice(0, max)}…`, true] : [text, false]);

export async function explain(runner: SqlRunner, dialect: SqlDialect, query: SQL): Promise<DebugInfo> {
  const compiled = dialect.toQuery(query);
  let truncated = false;
  const [text, cutSql] = clip(compiled.sql, DEBUG_LIMITS.sql);
  truncated ||= cutSql;
  const params = compiled.params.slice(0, DEBUG_LIMITS.params).map((p) => {
    if (typeof p !== 'string') return p;
    const [value, cut] = clip(p, DEBUG_LIMITS.param);
    truncated ||= cut;
    return value;
  });
  truncated ||= compiled.params.length > DEBUG_LIMITS.params;
  const rows = await runner.all(dialect.explain(query));
  // SQLite: rows of {id, parent, detail}; Postgres: one row holding the JSON plan.
  let plan: unknown = dialect.name === 'postgres' ? (rows[0]?.['QUERY PLAN'] ?? rows) : rows.map((r) => ({ id: r.id, parent: r.parent, detail: r.detail }));
  if (typeof plan === 'string') {
    try {
      plan = JSON.parse(plan) as unknown;
    } catch {
      // keep the text
    }
  }
  const serialized = JSON.stringify(plan) ?? '';
  if (serialized.length > DEBUG_LIMITS.plan) {
    plan = clip(serialized, DEBUG_LIMITS.plan)[0];
    truncated = true;
  }
  return { sql: text, params, plan, truncated };
}
