// Audit of control-plane changes (who, what, when, before/after version), written in the change's transaction.
import type { Database, Orm } from '../core/db/index.ts';
import type { Principal } from '../core/identity/index.ts';

/** What a control-plane change is made to (DESIGN §2: every change is an audit row). */
type ResourceType =
  | 'component' | 'deployment' | 'endpoint' | 'endpoint-settings'
  | 'agent' | 'agent-memory'
  | 'user' | 'service-account' | 'api-key' | 'workspace' | 'group'
  | 'secret';

export interface ChangeRecord {
  /** `<resource>.<verb>`, e.g. `agent.update`, `api-key.revoke`. */
  action: string;
  resourceType: ResourceType;
  resourceId: string | null;
  workspaceId: string | null;
  beforeVersion: number | null;
  afterVersion: number | null;
  details?: Record<string, unknown>;
}

export async function recordChange(db: Database, q: Orm, actor: Principal, change: ChangeRecord): Promise<void> {
  await q.insert(db.t.audit).values({
    id: crypto.randomUUID(),
    at: new Date(),
    kind: 'change',
    action: change.action,
    // Inside an Endpoint execution the initiator is the actor and the principal acting is the
    // execution account, as on the invocation's own row (spec, Authentication rule 6).
    actorId: actor.context?.delegation?.initiatorId ?? actor.id,
    executionAccountId: actor.context?.delegation ? actor.id : null,
    resourceType: change.resourceType,
    resourceId: change.resourceId,
    workspaceId: change.workspaceId,
    beforeVersion: change.beforeVersion,
    afterVersion: change.afterVersion,
    status: null,
    durationMs: null,
    oid: actor.context?.oid ?? null,
    executionId: actor.context?.delegation?.executionId ?? null,
    details: change.details ?? null,
  });
}
