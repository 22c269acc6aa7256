// GET /api/v1/endpoints through the list engine. Rows come back in the definition's API shape:
// the stored `definition` document is spread into the row when it is selected.
import type { Database } from '../core/db/index.ts';
import type { Principal } from '../core/identity/index.ts';
import { defineResource, defineTable, type ListResult, fieldsOf, tableName, listInWorkspaces } from '../core/query/index.ts';
import { pgTables as pg } from '../core/db/schema/index.ts';

const endpointsTable = defineTable({
  name: tableName(pg.endpoints),
  key: 'id',
  fields: fieldsOf(pg.endpoints, ['id', 'workspaceId', 'name', 'description', 'method', 'path', 'status', 'componentId', 'definition', 'contractStatus', 'version', 'createdAt', 'updatedAt'], { definition: { jsonPaths: true }, contractStatus: { jsonPaths: true } }),
  // The definition's own fields by the names the record shows them under: the scalars with their
  // types (so `timeoutMs` compares as an integer and refuses `"abc"`), the documents as JSON paths
  // (`staticResponse.status` reaches into one).
  aliases: {
    successStatus: { path: 'definition.successStatus', type: 'integer' },
    timeoutMs: { path: 'definition.timeoutMs', type: 'integer' },
    popResult: { path: 'definition.popResult', type: 'string' },
    noResult: { path: 'definition.noResult', type: 'boolean' },
    legacyResults: { path: 'definition.legacyResults', type: 'boolean' },
    componentDigest: { path: 'definition.componentDigest', type: 'string' },
    ...Object.fromEntries(['guard', 'validationFailure', 'staticResponse', 'executionPolicy', 'inputs'].map((name) => [name, `definition.${name}`])),
  },
});

const endpointsResource = defineResource({
  table: endpointsTable,
  features: { distinct: true, projection: true, groupBy: true, cast: true },
  aggregates: ['count', 'min', 'max'],
  defaultSort: [{ field: 'createdAt', dir: 'desc' }],
});

export class EndpointLister {
  constructor(private readonly db: Database) {}

  async list(principal: Principal, search: string): Promise<ListResult> {
    const result = await listInWorkspaces(this.db, endpointsResource, principal, search);
    return { ...result, data: result.data.map(flatten) };
  }
}

function flatten(row: Record<string, unknown>): Record<string, unknown> {
  const { definition, ...rest } = row;
  return definition && typeof definition === 'object' && !Array.isArray(definition) ? { ...rest, ...(definition as Record<string, unknown>) } : row;
}
