// runList: compiles a parsed query for the runner's dialect, runs the page (and count) query
// and returns the envelope of DESIGN §6. Route handlers call it after their own auth checks,
// passing the trusted scope that restricts rows to what the caller may see.
import type { SQL } from 'drizzle-orm';
import { ProblemError } from '../http/index.ts';
import { type ListQuery, QueryIssue, debugForbidden, LIMITS, type Operator, type ListResource, type SqlRunner } from './model/index.ts';
import { type Scopes, compileList } from './compile/index.ts';
import { decodeRows } from './decode.ts';
import { type DebugInfo, explain } from './debug.ts';
import { dialectFor } from './dialect/index.ts';
import { parseIssuesOf, parseNode } from './parse/index.ts';

/** A filter in the wire shape, written by server code (scopes). */
export type FilterInput =
  | { and: FilterInput[] }
  | { or: FilterInput[] }
  | { not: FilterInput }
  | { field: string; op: Operator; value?: unknown };

export interface RunListOptions {
  /** Trusted predicate ANDed into the main query, in the base table's fields (hidden ones allowed). */
  scope?: FilterInput;
  /**
   * Trusted predicates per table name, ANDed wherever a join or CTE reads that table. A table
   * a request joins or reads in a CTE must have one (or 'all'); otherwise runList throws, since
   * the route never decided which of its rows the caller may see. The base table's CTEs use
   * `scope` too.
   */
  tableScopes?: Readonly<Record<string, FilterInput | 'all'>>;
  /** Whether the caller may see debug output (INSTANCE_ADMIN). */
  debugAllowed: boolean;
}

export interface ListMeta {
  offset: number;
  limit: number;
  hasMore: boolean;
  count?: number;
}

export interface ListResult {
  data: Record<string, unknown>[];
  meta: ListMeta;
  debug?: DebugInfo & { count?: DebugInfo };
}

function trusted(input: FilterInput, pointer: string) {
  try {
    return parseNode(input, pointer, 1, { predicates: 0, values: 0 });
  } catch (error) {
    if (error instanceof QueryIssue) throw new Error(`runList: invalid ${pointer}: ${error.message} at ${error.pointer}`);
    throw error;
  }
}

/** Runs a query; a Postgres data exception (a value that does not convert) is the client's 400, a statement timeout a 503. */
async function execute(runner: SqlRunner, query: SQL): Promise<Record<string, unknown>[]> {
  try {
    return await runner.all(query);
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
    // Past the list query time limit: Postgres cut it off at the list connections'
    // statement_timeout (src/core/db/postgres/open.ts), or a SQLite reader gave up on it (src/core/db/sqlite/readers.ts).
    if (code === '57014' || code === 'QUERY_TIMEOUT') {
      throw new ProblemError(503, 'QUERY_TIMEOUT', 'The list query ran past its time limit; narrow the filter or ask for less (sort and filter on indexed fields, no count)');
    }
    if (/^22[0-9A-Z]{3}$/.test(code)) {
      const message = 'a stored value cannot be converted as the query asks (check cast and filter values)';
      throw new ProblemError(400, 'INVALID_QUERY', message, { errors: [{ pointer: '/query', message }] });
    }
    throw error;
  }
}

/** Lists one page of `resource` for `query`. Throws 400 INVALID_QUERY and 403 DEBUG_FORBIDDEN problems. */
export async function runList(runner: SqlRunner, resource: ListResource, query: ListQuery, options: RunListOptions): Promise<ListResult> {
  const dialect = dialectFor(runner.dialect);
  const scopes: Scopes = {
    tables: new Map(Object.entries(options.tableScopes ?? {}).map(([table, f]) => [table, f === 'all' ? 'all' : trusted(f, `/tableScopes/${table}`)])),
  };
  if (options.scope) scopes.base = trusted(options.scope, '/scope');
  // A query that does not parse is a 400 before anything else (debug's 403 included).
  const pending = parseIssuesOf(query);
  if (pending) throw withCompileIssues(pending, () => compileList(dialect, resource, query, scopes));
  if (query.debug && !options.debugAllowed) throw debugForbidden();
  const compiled = compileList(dialect, resource, query, scopes);

  const rows = await execute(runner, compiled.page);
  const result: ListResult = {
    data: decodeRows(rows.slice(0, compiled.limit), compiled.columns),
    meta: { offset: compiled.offset, limit: compiled.limit, hasMore: rows.length > compiled.limit },
  };
  if (compiled.count) {
    const counted = await execute(runner, compiled.count);
    result.meta.count = Number(counted[0]?.n ?? 0);
  }
  if (query.debug) {
    const info: DebugInfo & { count?: DebugInfo } = await explain(runner, dialect, compiled.page);
    if (compiled.count) info.count = await explain(runner, dialect, compiled.count);
    result.debug = info;
  }
  return result;
}

/** The parse problem, with whatever compiling the rest of the query finds wrong too (one 400 for all). */
function withCompileIssues(pending: ProblemError, compile: () => unknown): ProblemError {
  try {
    compile();
  } catch (error) {
    if (error instanceof ProblemError && error.code === 'INVALID_QUERY' && error.errors) {
      const seen = new Set(pending.errors?.map((v) => `${v.pointer}\u0000${v.message}`));
      const more = error.errors.filter((v) => !seen.has(`${v.pointer}\u0000${v.message}`));
      if (more.length > 0) {
        const errors = [...(pending.errors ?? []), ...more].slice(0, LIMITS.violations);
        return new ProblemError(400, 'INVALID_QUERY', `${errors.length} query parameters are invalid`, { errors });
      }
    }
  }
  return pending;
}
