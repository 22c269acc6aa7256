// GET /api/v1/components through the list engine. Without an explicit projection each row is the
// full component (with its latest and active revisions); with `fields`/`groupBy` rows are as selected.
import type { Database } from '../db/index.ts';
import type { Principal } from '../auth/roles.ts';
import { defineResource, defineTable, parseListQuery, type ListResult } from '../query/index.ts';
import { listInWorkspaces } from '../query/scope.ts';

export const componentsTable = defineTable({
  name: 'components',
  key: 'id',
  fields: {
    id: { column: 'id', type: 'uuid' },
    workspaceId: { column: 'workspace_id', type: 'uuid' },
    name: { column: 'name', type: 'string' },
    kind: { column: 'kind', type: 'string' },
    description: { column: 'description', type: 'string', nullable: true },
    latestRevisionId: { column: 'latest_revision_id', type: 'uuid', nullable: true },
    activeRevisionId: { column: 'active_revision_id', type: 'uuid', nullable: true },
    version: { column: 'version', type: 'integer' },
    createdBy: { column: 'created_by', type: 'uuid' },
    createdAt: { column: 'created_at', type: 'timestamp' },
    updatedAt: { column: 'updated_at', type: 'timestamp' },
  },
});

export const componentsResource = defineResource({
  table: componentsTable,
  features: { distinct: true, projection: true, groupBy: true, cast: true },
  aggregates: ['count', 'min', 'max'],
  defaultSort: [{ field: 'createdAt', dir: 'desc' }],
});

/** Runs the engine; `expand` turns ids into full component views when no projection was asked for. */
export async function listComponents(
  db: Database,
  principal: Principal,
  search: string,
  expand: (ids: string[]) => Promise<Map<string, unknown>>,
): Promise<ListResult> {
  const query = parseListQuery(search);
  const result = await listInWorkspaces(db, componentsResource, principal, query);
  if (query.fields || query.groupBy || query.distinct) return result;
  const views = await expand(result.data.map((row) => String(row.id)));
  return { ...result, data: result.data.map((row) => (views.get(String(row.id)) as Record<string, unknown> | undefined) ?? row) };
}
