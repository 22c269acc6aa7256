// Which revision of a component may run as a service account (spec, Authentication rule 9, extended
// to every account by DESIGN §8): one approved for it, by its author's save or by an approver,
// whose roles and workspaces at the time covered the account's current ones (../identity/coverage.ts).
// Pure: Endpoints apply it when the definition index is built, contract validation and agent tools
// per call, all on the same facts (the approvals a revision has, newest revision first).
import { covers, type Rights, type Principal } from '../identity/index.ts';
import type { ComponentKind } from './component-lookup.ts';

/** One approval of a revision: who, and the rights they held when they gave it. */
export interface Approval extends Rights {
  principalId: string;
  roles: string[];
  workspaceIds: string[];
  approvedAt: Date;
}

/** A revision with the approvals it has. */
export interface ApprovedRevision {
  id: string;
  number: number;
  digest: string;
  approvals: readonly Rights[];
}

/**
 * The approval `principal` gives by saving, selecting or approving a revision: its rights now.
 * None from inside an execution (api.platform): code run as an account would otherwise approve
 * code to run as that account, and as an administrator approve itself.
 */
export function approvalBy(principal: Principal, at = new Date()): Approval | null {
  if (principal.context?.delegation) return null;
  return { principalId: principal.id, roles: [...principal.roles], workspaceIds: [...principal.workspaceIds], approvedAt: at };
}

/** Whether any of these approvals covers the account's rights as they are now. */
export const approvedFor = (approvals: readonly Rights[], account: Rights): boolean => approvals.some((approval) => covers(approval, account));

/** The approval naming who approved a revision to run as an administrator account, if any. */
export const administratorApproval = <A extends Rights>(approvals: readonly A[]): A | null =>
  approvals.find((approval) => approval.roles.includes('INSTANCE_ADMIN')) ?? null;

export interface RunAsQuestion {
  kind: ComponentKind;
  /** The Endpoint's (or tool's) pinned digest, if any. */
  pinnedDigest?: string | undefined;
  /** What the binding runs for every other identity (pinned, latest active, selected ready); null: nothing ready. */
  bound: { id: string } | null;
  /** The component's revisions that have approvals, any order. */
  approved: readonly ApprovedRevision[];
  /** The execution account's current roles and workspaces. */
  account: Rights;
}

/**
 * The id of the revision that runs as the account, or null when none may (REVISION_NOT_APPROVED).
 * The bound revision when approved for it (pinned: any revision with its digest, equal content);
 * else for lowcode that is not pinned the newest revision approved for it. A node component runs
 * its selected revision or nothing: a rollback is never undone by an older approval.
 */
export function revisionToRun(question: RunAsQuestion): string | null {
  const { bound, approved, account } = question;
  if (!bound) return null;
  const approvedHere = (r: ApprovedRevision) => approvedFor(r.approvals, account);
  if (question.pinnedDigest !== undefined) {
    return approved.some((r) => r.digest === question.pinnedDigest && approvedHere(r)) ? bound.id : null;
  }
  if (approved.some((r) => r.id === bound.id && approvedHere(r))) return bound.id;
  if (question.kind !== 'lowcode') return null;
  let newest: ApprovedRevision | null = null;
  for (const r of approved) if (approvedHere(r) && (!newest || r.number > newest.number)) newest = r;
  return newest?.id ?? null;
}
