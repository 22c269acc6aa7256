// Groups: named sets of principals, usable as Agent owners (ownerType GROUP).
import { eq } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { isUuid } from '../lib/index.ts';

export interface Group {
  id: string;
  name: string;
  memberIds: string[];
  createdAt: Date;
}

export class GroupStore {
  constructor(private readonly db: Database) {}

  async create(name: string, memberIds: string[]): Promise<Group> {
    const { groups, groupMembers } = this.db.t;
    const group = { id: crypto.randomUUID(), name, createdAt: new Date() };
    const members = [...new Set(memberIds)];
    await this.db.write(async (q) => {
      await q.insert(groups).values(group);
      if (members.length > 0) await q.insert(groupMembers).values(members.map((principalId) => ({ groupId: group.id, principalId })));
    });
    return { ...group, memberIds: members };
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
