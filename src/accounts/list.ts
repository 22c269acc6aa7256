// GET /api/v1/workspaces and GET /api/v1/api-keys through the list engine (DESIGN §6: every list
// endpoint): the same paging, filters, sort, fields and envelope as every other list.
import type { Database } from '../core/db/index.ts';
import { isAdmin, type Principal } from '../core/identity/index.ts';
import {
  defineResource,
  defineTable,
  parseListQueryPartly,
  runList,
  type ListResult,
  fieldsOf,
  tableName,
  workspaceScope,
} from '../core/query/index.ts';
import { pgTables as pg } from '../core/db/schema/index.ts';

const workspacesResource = defineResource({
  table: defineTable({
    name: tableName(pg.workspaces),
    key: 'id',
    fields: fieldsOf(pg.workspaces, ['id', 'name', 'createdAt']),
  }),
  defaultSort: [{ field: 'createdAt', dir: 'asc' }],
});

/** Active keys only; the digest is never a field. */
export const apiKeysResource = defineResource({
  table: defineTable({
    name: tableName(pg.apiKeys),
    key: 'id',
    fields: fieldsOf(pg.apiKeys, ['id', 'principalId', 'name', 'expiresAt', 'revokedAt', 'lastUsedAt', 'createdAt']),
  }),
  defaultSort: [{ field: 'createdAt', dir: 'asc' }],
});

export class AccountLister {
  constructor(private readonly db: Database) {}

  /** Every workspace for an instance admin, else the caller's own. */
  workspaces(principal: Principal, search: string): Promise<ListResult> {
    return runList(this.db.runner, workspacesResource, parseListQueryPartly(search), { scope: workspaceScope(principal, 'id'), debugAllowed: isAdmin(principal) });
  }

  /** The active keys of one principal (whose access the caller has already been checked for). */
  apiKeys(principal: Principal, principalId: string, search: string): Promise<ListResult> {
    const scope = { and: [{ field: 'principalId', op: 'eq' as const, value: principalId }, { field: 'revokedAt', op: 'isNull' as const }] };
    return runList(this.db.runner, apiKeysResource, parseListQueryPartly(search), { scope, debugAllowed: isAdmin(principal) });
  }
}
