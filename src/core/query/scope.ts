// Workspace scoping for list endpoints: INSTANCE_ADMIN sees every workspace, others their own.
import type { Database } from '../db/index.ts';
import { isAdmin, type Principal } from '../identity/index.ts';
import type { ListQuery, ListResource } from './model/index.ts';
import { parseListQueryPartly } from './parse/index.ts';
import { runList, type FilterInput, type ListResult } from './run.ts';

/** A uuid no row has: `in` needs a non-empty list, and a principal may belong to no workspace. */
const NO_WORKSPACE = '00000000-0000-0000-0000-000000000000';

export function workspaceScope(principal: Principal, field = 'workspaceId'): FilterInput | undefined {
  if (isAdmin(principal)) return undefined;
  return { field, op: 'in', value: principal.workspaceIds.length > 0 ? principal.workspaceIds : [NO_WORKSPACE] };
}

/** Runs a list request over a resource with a `workspaceId` field, limited to what the caller may see. */
export function listInWorkspaces(db: Database, resource: ListResource, principal: Principal, search: string | ListQuery): Promise<ListResult> {
  const query = typeof search === 'string' ? parseListQueryPartly(search) : search;
  return runList(db.runner, resource, query, { scope: workspaceScope(principal), debugAllowed: isAdmin(principal) });
}
