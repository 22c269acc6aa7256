// The accounts surface's lists through the list engine (DESIGN §6: every list endpoint): the same
// paging, filters, sort, fields and envelope as every other list. Users, service accounts and
// groups are listed as their GET-one (or create) answers them, unless `fields` picks columns.
import { sql } from 'drizzle-orm';
import type { Database } from '../core/db/index.ts';
import type { GroupStore } from '../core/identity/index.ts';
import type { PrincipalStore } from '../core/identity/index.ts';
import { isAdmin, type Principal } from '../core/identity/index.ts';
import { defineResource, defineTable, parseListQueryPartly, runList, withRecords, type ListResource, type ListResult, fieldsOf, tableName } from '../core/query/index.ts';
import { pgTables as pg } from '../core/db/schema/index.ts';
import { workspaceScope } from '../core/query/index.ts';
import { groupJson, principalJson } from './json.ts';

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

/** A user's fields are its record's (principalJson): `status` is its stored `active` flag, spelled out. */
const usersResource = defineResource({
  table: defineTable({
    name: tableName(pg.principals),
    key: 'id',
    fields: fieldsOf(pg.principals, ['id', 'kind', 'name', 'email', 'roles', 'platformAccess', 'active', 'createdAt'], { active: { hidden: true } }),
    computed: {
      status: { type: 'string', build: (column) => sql`CASE WHEN ${column('active')} THEN 'ACTIVE' ELSE 'DISABLED' END` },
    },
  }),
  defaultSort: [{ field: 'createdAt', dir: 'asc' }],
});

const serviceAccountsResource = defineResource({
  table: defineTable({
    name: tableName(pg.principals),
    key: 'id',
    fields: fieldsOf(pg.principals, ['id', 'kind', 'name', 'roles', 'platformAccess', 'active', 'createdAt']),
  }),
  defaultSort: [{ field: 'createdAt', dir: 'asc' }],
});

/** Members are not a column: a group's record adds its memberIds. */
const groupsResource = defineResource({
  table: defineTable({
    name: tableName(pg.groups),
    key: 'id',
    fields: fieldsOf(pg.groups, ['id', 'name', 'createdAt']),
  }),
  defaultSort: [{ field: 'createdAt', dir: 'asc' }],
});

export class AccountLister {
  constructor(private readonly db: Database, private readonly records: { principals: PrincipalStore; groups: GroupStore }) {}

  /** Every workspace for an instance admin, else the caller's own. */
  workspaces(principal: Principal, search: string): Promise<ListResult> {
    return runList(this.db.runner, workspacesResource, parseListQueryPartly(search), { scope: workspaceScope(principal, 'id'), debugAllowed: isAdmin(principal) });
  }

  /** The active keys of one principal (whose access the caller has already been checked for). */
  apiKeys(principal: Principal, principalId: string, search: string): Promise<ListResult> {
    const scope = { and: [{ field: 'principalId', op: 'eq' as const, value: principalId }, { field: 'revokedAt', op: 'isNull' as const }] };
    return runList(this.db.runner, apiKeysResource, parseListQueryPartly(search), { scope, debugAllowed: isAdmin(principal) });
  }

  /** Users (INSTANCE_ADMIN: the route checked), as GET /users/{id} answers them. */
  users(principal: Principal, search: string): Promise<ListResult> {
    return this.principals(usersResource, 'USER', principal, search);
  }

  /** Service accounts (INSTANCE_ADMIN), as GET /service-accounts/{id} answers them. */
  serviceAccounts(principal: Principal, search: string): Promise<ListResult> {
    return this.principals(serviceAccountsResource, 'SERVICE_ACCOUNT', principal, search);
  }

  /** Groups (INSTANCE_ADMIN) with their members, as POST /groups answers them. */
  async groups(principal: Principal, search: string): Promise<ListResult> {
    const query = parseListQueryPartly(search);
    const page = await runList(this.db.runner, groupsResource, query, { debugAllowed: isAdmin(principal) });
    return withRecords(query, page, async (ids) => new Map([...(await this.records.groups.many(ids))].map(([id, group]) => [id, groupJson(group)])));
  }

  private async principals(resource: ListResource, kind: 'USER' | 'SERVICE_ACCOUNT', principal: Principal, search: string): Promise<ListResult> {
    const query = parseListQueryPartly(search);
    const page = await runList(this.db.runner, resource, query, { scope: { field: 'kind', op: 'eq', value: kind }, debugAllowed: isAdmin(principal) });
    return withRecords(query, page, async (ids) => new Map([...(await this.records.principals.many(ids))].map(([id, p]) => [id, principalJson(p)])));
  }
}
