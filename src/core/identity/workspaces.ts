// Workspaces: the boundary of visibility. `default` exists from the first start.
import { asc, eq, inArray } from 'drizzle-orm';
import type { Database, Orm } from '../db/index.ts';
import { isUniqueViolation } from '../db/index.ts';
import { ProblemError, notFound } from '../http/index.ts';
import { inWorkspace, type Principal } from './roles.ts';

export interface Workspace {
  id: string;
  name: string;
  createdAt: Date;
}

const DEFAULT_WORKSPACE = 'default';

export class WorkspaceStore {
  constructor(private readonly db: Database) {}

  /** `within` runs in the same transaction once the workspace is stored (the audit row). */
  async create(name: string, within?: (q: Orm, created: Workspace) => Promise<void>): Promise<Workspace> {
    const { workspaces } = this.db.t;
    const row = { id: crypto.randomUUID(), name, createdAt: new Date() };
    try {
      await this.db.write(async (q) => {
        await q.insert(workspaces).values(row);
        await within?.(q, row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ProblemError(409, 'CONFLICT', `A workspace named "${name}" exists`);
      throw error;
    }
    return row;
  }

  async byName(name: string): Promise<Workspace | null> {
    const { workspaces } = this.db.t;
    const rows = await this.db.read((q) => q.select().from(workspaces).where(eq(workspaces.name, name)));
    return rows[0] ?? null;
  }

  async list(ids?: string[]): Promise<Workspace[]> {
    const { workspaces } = this.db.t;
    return this.db.read((q) => {
      const base = q.select().from(workspaces);
      return (ids ? base.where(inArray(workspaces.id, ids.length > 0 ? ids : ['00000000-0000-0000-0000-000000000000'])) : base).orderBy(asc(workspaces.createdAt));
    });
  }

  /** Ids that do not name a workspace (for 422 pointers). */
  async missing(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const found = new Set((await this.list([...ids])).map((w) => w.id));
    return ids.filter((id) => !found.has(id));
  }

  /** Creates `default` if absent and returns it; safe under concurrent starts. */
  async ensureDefault(): Promise<Workspace> {
    const { workspaces } = this.db.t;
    await this.db.read((q) =>
      q.insert(workspaces).values({ id: crypto.randomUUID(), name: DEFAULT_WORKSPACE, createdAt: new Date() }).onConflictDoNothing(),
    );
    return (await this.byName(DEFAULT_WORKSPACE))!;
  }
}

/**
 * The workspace a new resource goes into (DESIGN §2): the one given, or the caller's first. It must
 * be visible to the caller and exist, else 404 (an instance admin sees every workspace, so only
 * existence is left to check); a caller in no workspace must name one (422).
 */
export async function creationWorkspace(store: WorkspaceStore, principal: Principal, requested: string | undefined): Promise<string> {
  const workspaceId = requested ?? principal.workspaceIds[0];
  if (!workspaceId) {
    throw new ProblemError(422, 'VALIDATION_FAILED', 'The caller belongs to no workspace; give workspaceId', {
      errors: [{ pointer: '/workspaceId', message: 'Required: the caller has no workspace' }],
    });
  }
  if (!inWorkspace(principal, workspaceId) || (await store.missing([workspaceId])).length > 0) throw notFound('Workspace');
  return workspaceId;
}
