// Offset/limit paging of the component lists, until the list engine (DESIGN §6) takes them over.
import { invalidQuery } from '../http/problem.ts';

export interface Page {
  offset: number;
  limit: number;
}

export function pageOf(search: string): Page {
  const params = new URLSearchParams(search);
  return { offset: intParam(params, 'offset', 0, Number.MAX_SAFE_INTEGER), limit: intParam(params, 'limit', 100, 10_000) };
}

/** `{data, meta}` from rows fetched with limit + 1, so `hasMore` needs no count. */
export function paged<R, J>(rows: R[], page: Page, toJson: (row: R) => J) {
  return {
    data: rows.slice(0, page.limit).map(toJson),
    meta: { offset: page.offset, limit: page.limit, hasMore: rows.length > page.limit },
  };
}

function intParam(params: URLSearchParams, name: string, fallback: number, max: number): number {
  const raw = params.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > max) throw invalidQuery(`${name} must be an integer from 0 to ${max}`, `/query/${name}`);
  return n;
}
