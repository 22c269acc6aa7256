// GET /api/v1/agents through the list engine: the Agent record's fields, JSON paths into
// metadata/config/policy, scoped to the caller's workspaces.
import type { Database } from '../core/db/index.ts';
import type { Principal } from '../core/identity/index.ts';
import { defineResource, defineTable, type ListResult, fieldsOf, tableName, listInWorkspaces } from '../core/query/index.ts';
import { pgTables as pg } from '../core/db/schema/index.ts';

const agentsTable = defineTable({
  name: tableName(pg.agents),
  key: 'id',
  fields: fieldsOf(pg.agents, ['id', 'workspaceId', 'name', 'desc', 'status', 'ownerId', 'ownerType', 'serviceAccountUserId', 'metadata', 'config', 'policy', 'version', 'createdAt', 'updatedAt'], { metadata: { jsonPaths: true }, config: { jsonPaths: true }, policy: { jsonPaths: true } }),
});

const agentsResource = defineResource({
  table: agentsTable,
  features: { distinct: true, projection: true, groupBy: true, cast: true },
  aggregates: ['count', 'min', 'max'],
  defaultSort: [{ field: 'createdAt', dir: 'desc' }],
});

export class AgentLister {
  constructor(private readonly db: Database) {}

  list(principal: Principal, search: string): Promise<ListResult> {
    return listInWorkspaces(this.db, agentsResource, principal, search);
  }
}
