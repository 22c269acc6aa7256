// Code runs as a service account only when approved for it (spec, Authentication rule 9, extended
// to every account by DESIGN §8). The definition index judged which revision that is against the
// account's roles and workspaces when it was built; an account that holds more by the time it
// invokes is refused until the index built after that change (it bumps the version) judges again.
import { covers, type Rights } from '../src/core/identity/index.ts';
import { ProblemError } from '../src/core/http/index.ts';
import type { CompiledEndpoint } from './index/index.ts';

/** The Endpoint as it runs for `account` (another revision, perhaps), or a 403 before any execution. */
export function asAccount(endpoint: CompiledEndpoint, account: { id: string } & Rights): CompiledEndpoint {
  const { runAs } = endpoint;
  // Not judged for this account (a missing one at build): nothing is approved for it.
  if (!runAs || runAs.accountId !== account.id || !runAs.code) {
    throw new ProblemError(403, 'REVISION_NOT_APPROVED', 'No revision of the Endpoint\'s component is approved to run as its service account: code runs as a service account when its author, or a principal who approved it, held every role of the account (ENDPOINT_INVOKE aside) and belonged to every workspace of it');
  }
  if (!covers(runAs.rights, account)) {
    throw new ProblemError(403, 'REVISION_NOT_APPROVED', 'The Endpoint\'s service account holds roles or workspaces its code has not been approved for yet (they changed moments ago); the approval is checked again within seconds');
  }
  if (runAs.code === endpoint.code) return endpoint;
  return { ...endpoint, code: runAs.code, resultSchemas: runAs.resultSchemas, revisionDigest: null };
}
