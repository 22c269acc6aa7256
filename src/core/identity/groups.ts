// Groups: named sets of principals, usable as Agent owners (ownerType GROUP).
import { eq, inArray } from 'drizzle-orm';
import type { Database, Orm } from '../db/index.ts';
import { isUuid } from '../lib/index.ts';

export interface Group {
  id: string;
  name: string;
  memberIds: string[];
  createdAt: Date;
}

export class GroupStore {
  constructor(private readonly db: Database) {}

  /** `within` runs in the same transaction once the group and its members are stored (the audit row). */
  async create(name: string, memberIds: string[], within?: (q: Orm, created: Group) => Promise<void>): Promise<Group> {
    const { groups, groupMembers } = this.db.t;
    const group = { id: crypto.randomUUID(), name, createdAt: new Date() };
    const created = { ...group, memberIds: [...new Set(memberIds)] };
    await this.db.write(async (q) => {
      await q.insert(groups).values(group);
      if (created.memberIds.length > 0) await q.insert(groupMembers).values(created.memberIds.map((principalId) => ({ groupId: group.id, principalId })));
      await within?.(q, created);
    });
    return created;
  }

  /** Groups by id with their members (absent ids are left out), read set-wise. */
  async many(ids: readonly string[]): Promise<Map<string, Group>> {
    const wanted = [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];
    const { groups, groupMembers } = this.db.t;
    const out = new Map<string, Group>();
    await this.db.read(async (q) => {
      for (let i = 0; i < wanted.length; i += GROUPS_CHUNK) {
        const some = wanted.slice(i, i + GROUPS_CHUNK);
        for (const row of await q.select().from(groups).where(inArray(groups.id, some))) out.set(row.id, { ...row, memberIds: [] });
        const members = await q.select().from(groupMembers).where(inArray(groupMembers.groupId, some));
        for (const m of members) out.get(m.groupId)?.memberIds.push(m.principalId);
      }
    });
    return out;
  }

  async get(id: string): Promise<Group | null> {
    if (!isUuid(id)) return null;
    const { groups, groupMembers } = this.db.t;
    return this.db.read(async (q) => {
      const rows = await q.select().from(groups).where(eq(groups.id, id));
      const row = rows[0];
      if (!row) return null;
      const members = await q.select({ id: groupMembers.principalId }).from(groupMembers).where(eq(groupMembers.groupId, id));
      return { ...row, memberIds: members.map((m) => m.id) };
    });
  }
}

/** Ids per IN list in `many`: below both databases' parameter limits. */
const GROUPS_CHUNK = 500;
