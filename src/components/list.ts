// GET /api/v1/components, …/{id}/revisions and …/{id}/deployments through the list engine. Without
// an explicit projection each row is the full record (a component with its latest and active
// revisions, a revision with its content); with `fields`/`groupBy`/`distinct` rows are as selected.
import type { Database } from '../core/db/index.ts';
import { isAdmin, type Principal } from '../core/identity/index.ts';
import { defineResource, defineTable, parseListQueryPartly, runList, withRecords, type ListResource, type ListResult, fieldsOf, tableName } from '../core/query/index.ts';
import { pgTables as pg } from '../core/db/schema/index.ts';
import { listInWorkspaces } from '../core/query/index.ts';

const revisionsTable = defineTable({
  name: tableName(pg.componentRevisions),
  key: 'id',
  fields: fieldsOf(pg.componentRevisions, ['id', 'componentId', 'number', 'digest', 'status', 'createdBy', 'createdAt']),
});

/** The revision fields a component's `latestRevision.…` and `activeRevision.…` reach. */
const REVISION_FIELDS = ['id', 'number', 'digest', 'status', 'createdAt'];

const componentsTable = defineTable({
  name: tableName(pg.components),
  key: 'id',
  fields: fieldsOf(pg.components, ['id', 'workspaceId', 'name', 'kind', 'description', 'latestRevisionId', 'activeRevisionId', 'version', 'createdBy', 'createdAt', 'updatedAt']),
  // The record's latestRevision and activeRevision, e.g. `filter[field]=activeRevision.status`.
  relations: {
    latestRevision: { table: revisionsTable, from: 'latestRevisionId', to: 'id', fields: REVISION_FIELDS },
    activeRevision: { table: revisionsTable, from: 'activeRevisionId', to: 'id', fields: REVISION_FIELDS },
  },
});

/** What every component list offers beyond filters, sorts and paging. */
const LIST_OPTIONS = {
  features: { distinct: true, projection: true, groupBy: true, cast: true },
  aggregates: ['count', 'min', 'max'],
} as const;

const componentsResource = defineResource({
  table: componentsTable,
  ...LIST_OPTIONS,
  defaultSort: [{ field: 'createdAt', dir: 'desc' }],
});

/** Runs the engine; `expand` turns ids into full component views when no projection was asked for. */
export async function listComponents(
  db: Database,
  principal: Principal,
  search: string,
  expand: (ids: string[]) => Promise<Map<string, unknown>>,
): Promise<ListResult> {
  const query = parseListQueryPartly(search);
  return withRecords(query, await listInWorkspaces(db, componentsResource, principal, query), expand);
}

export const revisionsResource = defineResource({
  table: revisionsTable,
  ...LIST_OPTIONS,
  defaultSort: [{ field: 'number', dir: 'desc' }],
});

export const deploymentsResource = defineResource({
  table: defineTable({
    name: tableName(pg.deployments),
    key: 'id',
    fields: fieldsOf(pg.deployments, ['id', 'componentId', 'revisionId', 'status', 'error', 'active', 'createdBy', 'createdAt', 'readyAt']),
  }),
  ...LIST_OPTIONS,
  defaultSort: [{ field: 'createdAt', dir: 'desc' }],
});

/**
 * The list engine over one component's revisions or deployments (the caller may read the
 * component); `expand` turns ids into the full JSON records when no projection was asked for.
 */
export async function listOfComponent(
  db: Database,
  resource: ListResource,
  principal: Principal,
  componentId: string,
  search: string,
  expand: (ids: string[]) => Promise<Map<string, unknown>>,
): Promise<ListResult> {
  const query = parseListQueryPartly(search);
  const scope = { field: 'componentId', op: 'eq', value: componentId } as const;
  return withRecords(query, await runList(db.runner, resource, query, { scope, debugAllowed: isAdmin(principal) }), expand);
}
