// Who may see and change a component (DESIGN §2): 404 for the invisible (another workspace),
// 403 for the visible but refused.
import { isUuid } from '../core/lib/index.ts';
import { hasAnyRole, inWorkspace, type Principal } from '../core/identity/index.ts';
import { forbidden, notFound } from '../core/http/index.ts';
import type { Database } from '../core/db/index.ts';
import type { ComponentRecord } from './record.ts';
import type { ComponentStore } from './store.ts';

/** Components are read by whoever builds on them: component and endpoint admins. */
export const READ_ROLES = ['COMPONENT_ADMIN', 'ENDPOINT_ADMIN'] as const;
export const WRITE_ROLES = ['COMPONENT_ADMIN'] as const;

/** Ids are UUIDs (Postgres columns are typed so); anything else names nothing. */
export function assertId(id: string, what: string): void {
  if (!isUuid(id)) throw notFound(what);
}

function assertVisible(principal: Principal, component: ComponentRecord | null): asserts component is ComponentRecord {
  if (!component || !inWorkspace(principal, component.workspaceId)) throw notFound('Component');
}

export function assertCanRead(principal: Principal): void {
  if (!hasAnyRole(principal, READ_ROLES)) throw forbidden('Reading components needs COMPONENT_ADMIN, ENDPOINT_ADMIN or INSTANCE_ADMIN');
}

/** Creating, changing, deleting and deploying: COMPONENT_ADMIN of the workspace, or INSTANCE_ADMIN. */
export function assertCanWrite(principal: Principal): void {
  if (!hasAnyRole(principal, WRITE_ROLES)) throw forbidden('Changing components needs COMPONENT_ADMIN or INSTANCE_ADMIN');
}

/** The component `id` if the principal may see it and act as `need` asks (404 / 403 otherwise). */
export async function loadComponent(db: Database, store: ComponentStore, principal: Principal, id: string, need: 'read' | 'write'): Promise<ComponentRecord> {
  if (need === 'write') assertCanWrite(principal);
  else assertCanRead(principal);
  assertId(id, 'Component');
  const component = await db.read((q) => store.get(q, id));
  assertVisible(principal, component);
  return component;
}
