// Workspace scoping for list endpoints: INSTANCE_ADMIN sees every workspace, others their own.
import { isAdmin, type Principal } from '../auth/roles.ts';
import type { FilterInput } from './run.ts';

/** A uuid no row has: `in` needs a non-empty list, and a principal may belong to no workspace. */
const NO_WORKSPACE = '00000000-0000-0000-0000-000000000000';

export function workspaceScope(principal: Principal, field = 'workspaceId'): FilterInput | undefined {
  if (isAdmin(principal)) return undefined;
  return { field, op: 'in', value: principal.workspaceIds.length > 0 ? principal.workspaceIds : [NO_WORKSPACE] };
}
