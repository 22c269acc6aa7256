// Execution identity (spec, Authentication rules 1–9): who performs the operations inside the
// component, and who api.currentUser() reports.
import { type Principal, SYSTEM_PRINCIPAL_ID, type Rights } from '../src/core/identity/index.ts';
import { ProblemError } from '../src/core/http/index.ts';
import { executionAccountIdOf, executionModeOf, type EndpointSettings, type ExecutionPolicy } from '../src/core/definitions/index.ts';
import type { CurrentUser } from './executor/contract/index.ts';

export interface ExecutionIdentity {
  /** Whose roles and ACLs the inner operations use (api.platform runs as this principal). */
  executorId: string;
  executorKind: CurrentUser['kind'];
  /**
   * The service account executing (SERVICE_ACCOUNT mode), with its roles and workspaces now: it
   * runs only code approved for it (spec, Authentication rule 9, extended to every account).
   */
  account: ({ id: string } & Rights) | null;
  /** What api.currentUser() returns. */
  currentUser: CurrentUser;
}

const SYSTEM_USER: CurrentUser = { id: SYSTEM_PRINCIPAL_ID, kind: 'SYSTEM', name: 'System', roles: ['INSTANCE_ADMIN'] };

const asCurrentUser = (p: Principal): CurrentUser => ({ id: p.id, kind: p.kind, name: p.name, roles: [...p.roles] });

/**
 * The Endpoint's saved policy wins over the instance settings; an instance without saved settings
 * (and an Endpoint without its own policy) keeps the legacy System authority with the invoking user
 * as business identity. A service account must be active and have platform access, else 403.
 * Synchronous unless a service account has to be looked up.
 */
export function resolveIdentity(
  caller: Principal,
  endpointPolicy: ExecutionPolicy | undefined,
  settings: EndpointSettings,
  principal: (id: string) => Principal | null | Promise<Principal | null>,
): ExecutionIdentity | Promise<ExecutionIdentity> {
  const business = asCurrentUser(caller);
  const mode = executionModeOf(endpointPolicy, settings);
  const currentUserMode = endpointPolicy?.currentUser ?? (settings.saved ? settings.currentUser : 'BUSINESS_USER');
  const identity = (executor: CurrentUser, account: Principal | null = null): ExecutionIdentity => ({
    executorId: executor.id,
    executorKind: executor.kind,
    account: account && { id: account.id, roles: account.roles, workspaceIds: account.workspaceIds },
    currentUser: currentUserMode === 'EXECUTION_ACCOUNT' ? executor : business,
  });

  if (mode === 'SYSTEM') return identity(SYSTEM_USER);
  if (mode === 'CALLER') return identity(business);
  const accountId = executionAccountIdOf(endpointPolicy, settings);
  const found = accountId ? principal(accountId) : null;
  const usable = (account: Principal | null): ExecutionIdentity => {
    if (!account || account.kind !== 'SERVICE_ACCOUNT' || !account.active || !account.platformAccess) {
      throw new ProblemError(403, 'EXECUTION_ACCOUNT_UNUSABLE', 'The execution service account is missing, inactive or without platform access');
    }
    return identity(asCurrentUser(account), account);
  };
  return found instanceof Promise ? found.then(usable) : usable(found);
}
