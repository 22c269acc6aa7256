// parseListQuery: query string → ListQuery. Each parameter is parsed on its own so that one
// 400 reports every bad parameter.
import { type ListQuery, Issues, at, LIMITS } from '../model/index.ts';
import type { ProblemError } from '../../http/index.ts';
import { parseCast } from './cast.ts';
import { parseCte } from './cte.ts';
import { parseFilter } from './filter.ts';
import { parseJoins } from './joins.ts';
import { parseNames, parseSort } from './lists.ts';
import { type ParamName, readParams } from './params.ts';
import { parseFields } from './projection.ts';
import { parseBoolean, parseLimit, parseOffset } from './scalars.ts';
import type { Budget } from './shape.ts';

/** Parses the list parameters of a request; throws a 400 INVALID_QUERY problem listing every bad one. */
export function parseListQuery(search: URLSearchParams | string): ListQuery {
  const query = parseListQueryPartly(search);
  const pending = parseIssuesOf(query);
  if (pending) throw pending;
  return query;
}

const PARSE_ISSUES = Symbol('parse issues');

/** The 400 problem of the parameters that did not parse, when `parseListQueryPartly` left one. */
export const parseIssuesOf = (query: ListQuery): ProblemError | undefined => (query as { [PARSE_ISSUES]?: ProblemError })[PARSE_ISSUES];

/**
 * Like parseListQuery, but a parameter that does not parse is left at its default and its
 * violations ride along (parseIssuesOf): runList compiles the rest too, so that one 400 names
 * every bad part, unknown fields included, not only what failed to parse.
 */
export function parseListQueryPartly(search: URLSearchParams | string): ListQuery {
  const issues = new Issues();
  const params = issues.section(() => readParams(search));
  issues.throwIfAny();
  const query: ListQuery = { offset: 0, limit: LIMITS.limitDefault, count: false, debug: false };
  const budget: Budget = { predicates: 0, values: 0 };
  const each = (name: ParamName, apply: (raw: unknown, pointer: string) => void) => {
    const raw = params?.get(name);
    if (raw !== undefined) issues.section(() => apply(raw, at('/query', name)));
  };
  each('offset', (raw, p) => (query.offset = parseOffset(raw, p)));
  each('limit', (raw, p) => (query.limit = parseLimit(raw, p)));
  each('count', (raw, p) => (query.count = parseBoolean(raw, p)));
  each('debug', (raw, p) => (query.debug = parseBoolean(raw, p)));
  each('filter', (raw, p) => (query.filter = parseFilter(raw, p, budget)));
  each('sort', (raw, p) => (query.sort = parseSort(raw, p, LIMITS.sortEntries)));
  each('distinct', (raw, p) => (query.distinct = parseNames(raw, p, LIMITS.distinctEntries)));
  each('fields', (raw, p) => (query.fields = parseFields(raw, p, budget)));
  each('joins', (raw, p) => (query.joins = parseJoins(raw, p)));
  each('groupBy', (raw, p) => (query.groupBy = parseNames(raw, p, LIMITS.groupByEntries)));
  each('cast', (raw, p) => (query.cast = parseCast(raw, p)));
  each('cte', (raw, p) => (query.cte = parseCte(raw, p, budget)));
  try {
    issues.throwIfAny();
  } catch (problem) {
    Object.defineProperty(query, PARSE_ISSUES, { value: problem, enumerable: false });
  }
  return query;
}

export { parseNode } from './filter.ts';
