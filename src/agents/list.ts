// GET /api/v1/agents: agents of the caller's workspaces, newest first, paged.
import { desc, inArray } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { isAdmin, type Principal } from '../auth/roles.ts';
import { invalidQuery } from '../http/problem.ts';
import { agentJson, type AgentRecord } from './record.ts';

export class AgentLister {
  constructor(private readonly db: Database) {}

  async list(principal: Principal, search: string) {
    const params = new URLSearchParams(search);
    const offset = intParam(params, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    const limit = intParam(params, 'limit', 100, 0, 10_000);
    const { agents } = this.db.t;
    const rows = await this.db.read((q) => {
      const base = q.select().from(agents);
      const scoped = isAdmin(principal) ? base : base.where(inArray(agents.workspaceId, principal.workspaceIds.length ? principal.workspaceIds : ['']));
      return scoped.orderBy(desc(agents.createdAt)).limit(limit + 1).offset(offset);
    });
    return {
      data: rows.slice(0, limit).map((r) => agentJson(r as AgentRecord)),
      meta: { offset, limit, hasMore: rows.length > limit },
    };
  }
}

function intParam(params: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = params.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw invalidQuery(`${name} must be an integer from ${min} to ${max}`, `/query/${name}`);
  return n;
}
