// GET /api/v1/agents through the list engine: the Agent record's fields, JSON paths into
// metadata/config/policy, scoped to the caller's workspaces.
import type { Database } from '../core/db/index.ts';
import type { Principal } from '../core/identity/roles.ts';
import { defineResource, defineTable, type ListResult } from '../core/query/index.ts';
import { listInWorkspaces } from '../core/query/scope.ts';

export const agentsTable = defineTable({
  name: 'agents',
  key: 'id',
  fields: {
    id: { column: 'id', type: 'uuid' },
    workspaceId: { column: 'workspace_id', type: 'uuid' },
    name: { column: 'name', type: 'string' },
    desc: { column: 'desc', type: 'string', nullable: true },
    status: { column: 'status', type: 'string' },
    ownerId: { column: 'owner_id', type: 'uuid' },
    ownerType: { column: 'owner_type', type: 'string' },
    serviceAccountUserId: { column: 'service_account_user_id', type: 'uuid', nullable: true },
    metadata: { column: 'metadata', type: 'json', jsonPaths: true },
    config: { column: 'config', type: 'json', jsonPaths: true },
    policy: { column: 'policy', type: 'json', jsonPaths: true },
    version: { column: 'version', type: 'integer' },
    createdAt: { column: 'created_at', type: 'timestamp' },
    updatedAt: { column: 'updated_at', type: 'timestamp' },
  },
});

export const agentsResource = defineResource({
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
