// Who calls: principals and roles, API keys and JWTs, credential lookup and its cache,
// workspaces and groups, and the rights they carry.

export { actAsRefusal } from './act-as.ts';
export { covers, type Rights } from './coverage.ts';
export { CredentialResolver } from './credentials.ts';
export { GroupStore } from './groups.ts';
export { API_KEY_CLAIM, createJwtService, EXECUTION_SCOPE, type JwtService } from './jwt.ts';
export { ownedAgentWorkspaces } from './ownership.ts';
export { loadPrincipal, type PrincipalChanges, principalRights, PrincipalStore, type StoredKey } from './principals.ts';
export { hasAnyRole, inWorkspace, isAdmin, type Principal, type PrincipalKind, type Role, ROLES, SYSTEM_PRINCIPAL_ID } from './roles.ts';
export { creationWorkspace, WorkspaceStore } from './workspaces.ts';
export { type Group } from './groups.ts';
