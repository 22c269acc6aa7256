// What each Endpoint executing as a service account runs as it (DESIGN §8: rule 9 extended to
// every account), judged when the definition index is built against the account's roles and
// workspaces as they are then. The snapshot keeps those rights: a runtime refuses an account that
// has more by the time it invokes, until the index built after the change (every change to a
// service account bumps the index version) judges it again.
import type { Database, Orm } from '../db/index.ts';
import { principalRights } from '../identity/index.ts';
import type { Binding, BindingsReader } from './bindings.ts';
import type { BoundRevision } from './component-lookup.ts';

export interface JudgedRunAs {
  accountId: string;
  /** The account's roles and workspaces the judgement was made by. */
  roles: string[];
  workspaceIds: string[];
  /** What runs as the account: `same` as the binding runs for everyone else, another (older lowcode) revision, or none. */
  revision: BoundRevision | 'same' | null;
}

export interface RunAsRequest {
  endpointId: string;
  binding: Binding;
  accountId: string | undefined;
}

/**
 * Judges every request, reading the accounts set-wise (and the older revisions chosen). An
 * Endpoint whose account is missing gets null: nothing runs as it.
 */
export async function judgeRunAs(db: Database, q: Orm, reader: BindingsReader, requests: readonly RunAsRequest[]): Promise<Map<string, JudgedRunAs | null>> {
  const accounts = await principalRights(db, q, requests.map((r) => r.accountId).filter((id): id is string => id !== undefined));
  const chosen = new Map<string, { accountId: string; roles: string[]; workspaceIds: string[]; bound: string | null; runs: string | null }>();
  for (const { endpointId, binding, accountId } of requests) {
    const account = accountId === undefined ? undefined : accounts.get(accountId.toLowerCase());
    if (!account || account.kind !== 'SERVICE_ACCOUNT') continue;
    const bound = reader.resolve(binding)?.revision?.id ?? null;
    chosen.set(endpointId, { accountId: accountId!.toLowerCase(), roles: account.roles, workspaceIds: account.workspaceIds, bound, runs: reader.revisionAs(binding, account) });
  }
  await reader.fetch(db, q, [...chosen.values()].filter((c) => c.runs !== null && c.runs !== c.bound).map((c) => c.runs!));

  const out = new Map<string, JudgedRunAs | null>();
  for (const { endpointId } of requests) {
    const c = chosen.get(endpointId);
    if (!c) {
      out.set(endpointId, null);
      continue;
    }
    const revision = c.runs === null ? null : c.runs === c.bound ? 'same' : reader.revision(c.runs);
    out.set(endpointId, { accountId: c.accountId, roles: c.roles, workspaceIds: c.workspaceIds, revision });
  }
  return out;
}
