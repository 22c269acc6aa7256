// Lists whose rows are whole records: the engine filters, orders and pages the rows, and the
// route's own JSON of each record (what its GET-one answers) replaces the row, unless the query
// asked for a projection (`fields`, `groupBy`, `distinct`), whose rows are as selected.
import type { ListQuery } from './model/index.ts';
import type { ListResult } from './run.ts';

/** `expand` maps the page's ids (the `id` field) to their records. */
export async function withRecords(query: ListQuery, result: ListResult, expand: (ids: string[]) => Promise<Map<string, unknown>>): Promise<ListResult> {
  if (query.fields || query.groupBy || query.distinct) return result;
  const records = await expand(result.data.map((row) => String(row.id)));
  return { ...result, data: result.data.map((row) => (records.get(String(row.id)) as Record<string, unknown> | undefined) ?? row) };
}
