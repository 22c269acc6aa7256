// Approvals of tool calls and plans (DESIGN §5 Approvals): the API's side (list, resolve, who may)
// and the store both it and the engine use. The engine asks and waits; a person resolves through
// the API; the engine acts on the resolution it reads back, so both survive restarts.
import { and, asc, eq, gt, lte } from 'drizzle-orm';
import { Type } from '@sinclair/typebox';
import type { Database, Orm } from '../core/db/index.ts';
import type { Principal } from '../core/identity/index.ts';
import { isAdmin } from '../core/identity/index.ts';
import { ProblemError, notFound } from '../core/http/index.ts';
import { compile } from '../core/http/index.ts';
import { isUuid } from '../core/lib/index.ts';
import type { AgentRecord } from '../agents/index.ts';
import { isOwner } from '../agents/index.ts';

type ApprovalRow = Database['t']['approvals']['$inferSelect'];
export type ApprovalStatus = ApprovalRow['status'];

export const ApprovalResolveBody = Type.Object(
  {
    approve: Type.Boolean({ description: 'true approves, false rejects' }),
    reason: Type.Optional(Type.String({ maxLength: 2000, description: 'Why; recorded with the approval' })),
  },
  { additionalProperties: false, title: 'ApprovalResolve' },
);
export const approvalResolve = compile(ApprovalResolveBody);

/** A pending approval past its deadline reads as expired, whether or not the engine has noticed yet. */
const statusNow = (row: ApprovalRow, now = Date.now()): ApprovalStatus => (row.status === 'pending' && row.expiresAt.getTime() <= now ? 'expired' : row.status);

export const approvalJson = (row: ApprovalRow) => ({
  id: row.id,
  runId: row.runId,
  kind: row.kind,
  toolCallId: row.toolCallId,
  toolName: row.toolName,
  args: row.args ?? null,
  status: statusNow(row),
  requestedAt: row.requestedAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
  resolvedAt: row.resolvedAt?.toISOString() ?? (statusNow(row) === 'expired' && row.status === 'pending' ? row.expiresAt.toISOString() : null),
  resolvedBy: row.resolvedBy,
  reason: row.reason,
});

/**
 * Who may resolve a run's approvals: the agent's owner (a user, or a member of its GROUP),
 * AGENT_ADMIN of its workspace, INSTANCE_ADMIN, or a user the agent's approval routing delegates
 * to (unless its mode is `block`).
 */
function canResolve(principal: Principal, agent: AgentRecord): boolean {
  if (isAdmin(principal) || isOwner(principal, agent) || principal.roles.includes('AGENT_ADMIN')) return true;
  const routing = (agent.config.automation as { approvalRouting?: { mode?: string; delegateUserIds?: string[] } } | undefined)?.approvalRouting;
  return routing?.mode !== 'block' && (routing?.delegateUserIds ?? []).includes(principal.id);
}

export class ApprovalStore {
  constructor(private readonly db: Database) {}

  async ofRun(runId: string): Promise<ApprovalRow[]> {
    const { approvals } = this.db.t;
    return this.db.read((q) => q.select().from(approvals).where(eq(approvals.runId, runId)).orderBy(asc(approvals.requestedAt), asc(approvals.id)));
  }

  async get(id: string): Promise<ApprovalRow | null> {
    if (!isUuid(id)) return null;
    const { approvals } = this.db.t;
    const [row] = await this.db.read((q) => q.select().from(approvals).where(eq(approvals.id, id)));
    return row ?? null;
  }

  /** A new pending approval, to be inserted (insertRow) in the transaction that announces it. */
  draft(approval: Pick<ApprovalRow, 'runId' | 'kind' | 'toolCallId' | 'toolName' | 'args' | 'plan'> & { timeoutMs: number }): ApprovalRow {
    const now = new Date();
    return {
      id: crypto.randomUUID(),
      runId: approval.runId,
      kind: approval.kind,
      toolCallId: approval.toolCallId,
      toolName: approval.toolName,
      args: approval.args,
      plan: approval.plan,
      status: 'pending',
      requestedAt: now,
      expiresAt: new Date(now.getTime() + approval.timeoutMs),
      resolvedAt: null,
      resolvedBy: null,
      reason: null,
    };
  }

  async insertRow(q: Orm, row: ApprovalRow): Promise<void> {
    await q.insert(this.db.t.approvals).values(row);
  }

  /** Resolves a pending, unexpired approval; null when it was no longer pending (or had expired). */
  async resolve(id: string, approve: boolean, by: string, reason: string | undefined): Promise<ApprovalRow | null> {
    const { approvals } = this.db.t;
    const now = new Date();
    const [row] = await this.db.write((q) =>
      q
        .update(approvals)
        .set({ status: approve ? 'approved' : 'rejected', resolvedAt: now, resolvedBy: by, reason: reason ?? null })
        .where(and(eq(approvals.id, id), eq(approvals.status, 'pending'), gt(approvals.expiresAt, now)))
        .returning(),
    );
    return row ?? null;
  }

  /** Marks a pending approval past its deadline expired; true when this call did. */
  async expire(id: string): Promise<boolean> {
    const { approvals } = this.db.t;
    const now = new Date();
    const rows = await this.db.write((q) =>
      q.update(approvals).set({ status: 'expired', resolvedAt: now }).where(and(eq(approvals.id, id), eq(approvals.status, 'pending'), lte(approvals.expiresAt, now))).returning({ id: approvals.id }),
    );
    return rows.length > 0;
  }

  /** A run that ended while waiting: its pending approvals can no longer be acted on. */
  async closeRun(q: Orm, runId: string, reason: string): Promise<void> {
    const { approvals } = this.db.t;
    await q.update(approvals).set({ status: 'expired', resolvedAt: new Date(), reason }).where(and(eq(approvals.runId, runId), eq(approvals.status, 'pending')));
  }
}

/** The API side: list a run's approvals, resolve one. */
export async function resolveApproval(store: ApprovalStore, principal: Principal, agent: AgentRecord, run: { id: string; status: string }, approvalId: string, body: { approve: boolean; reason?: string }): Promise<ApprovalRow> {
  const approval = await store.get(approvalId);
  if (!approval || approval.runId !== run.id) throw notFound('Approval');
  if (!canResolve(principal, agent)) {
    throw new ProblemError(403, 'FORBIDDEN', "Resolving approvals needs the agent's ownership, AGENT_ADMIN, INSTANCE_ADMIN or a delegation in config.automation.approvalRouting");
  }
  const resolved = await store.resolve(approval.id, body.approve, principal.id, body.reason);
  if (resolved) return resolved;
  const now = (await store.get(approval.id)) ?? approval;
  throw new ProblemError(409, 'APPROVAL_RESOLVED', `The approval is already ${statusNow(now)}`, { extra: { approvalStatus: statusNow(now) } });
}
