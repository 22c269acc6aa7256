// The Agent record as the API returns it (DESIGN §4).

type AgentStatus = 'ACTIVE' | 'PAUSED' | 'DISABLED';
export type OwnerType = 'USER' | 'GROUP' | 'SERVICE_ACCOUNT';

export interface AgentRecord {
  id: string;
  workspaceId: string;
  name: string;
  desc: string | null;
  status: AgentStatus;
  ownerId: string;
  ownerType: OwnerType;
  serviceAccountUserId: string | null;
  metadata: Record<string, unknown>;
  config: Record<string, unknown>;
  policy: Record<string, unknown>;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** JSON shape: timestamps as ISO strings. */
export const agentJson = (a: AgentRecord) => ({
  id: a.id,
  workspaceId: a.workspaceId,
  name: a.name,
  desc: a.desc,
  status: a.status,
  ownerId: a.ownerId,
  ownerType: a.ownerType,
  serviceAccountUserId: a.serviceAccountUserId,
  metadata: a.metadata,
  config: a.config,
  policy: a.policy,
  version: a.version,
  createdAt: a.createdAt.toISOString(),
  updatedAt: a.updatedAt.toISOString(),
});

export { etagOf } from '../core/http/index.ts';
