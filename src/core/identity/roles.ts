// Platform roles (DESIGN §2) and the principal shape every part of the platform reasons about.

export const ROLES = [
  'INSTANCE_ADMIN',
  'ENDPOINT_INVOKE',
  'ENDPOINT_ADMIN',
  'COMPONENT_ADMIN',
  'AGENT_ADMIN',
  'AGENT_USER',
] as const;
export type Role = (typeof ROLES)[number];

export type PrincipalKind = 'USER' | 'SERVICE_ACCOUNT' | 'SYSTEM';

export interface Principal {
  id: string;
  kind: PrincipalKind;
  name: string;
  email: string | null;
  roles: Role[];
  platformAccess: boolean;
  /** Users: status ACTIVE; service accounts: active. */
  active: boolean;
  /** In membership order: the first is where the principal's resources go by default. */
  workspaceIds: string[];
  groupIds: string[];
  createdAt: Date;
  /** How this principal acts in the current request (set per request, never cached). */
  context?: ActingContext;
}

/** Per-request facts the audit trail records next to the principal. */
interface ActingContext {
  /** The request's operation id (x-svc-oid). */
  oid?: string;
  /**
   * Set when the principal acts as the execution account of an Endpoint invocation (api.platform):
   * who invoked it and which execution this is. Only from a token the platform minted for it.
   */
  delegation?: { initiatorId: string; executionId: string };
}

/** The legacy System execution authority (spec, Authentication rule 7). It has no credentials. */
export const SYSTEM_PRINCIPAL_ID = '00000000-0000-4000-8000-000000000001';

export const isAdmin = (p: Principal): boolean => p.roles.includes('INSTANCE_ADMIN');

export const hasAnyRole = (p: Principal, roles: readonly Role[]): boolean =>
  isAdmin(p) || roles.some((r) => p.roles.includes(r));

/** Whether the principal may see resources of the workspace. */
export const inWorkspace = (p: Principal, workspaceId: string): boolean =>
  isAdmin(p) || p.workspaceIds.includes(workspaceId);
