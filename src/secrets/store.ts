// Rows of the secrets table: insert, read one, delete. Values are stored sealed (crypto.ts).
import { eq } from 'drizzle-orm';
import type { Database, Orm } from '../core/db/index.ts';
import { isUuid } from '../core/lib/index.ts';

export interface SecretRow {
  id: string;
  workspaceId: string;
  name: string;
  /** Sealed: base64 of iv ‖ ciphertext ‖ tag. */
  value: string;
  createdBy: string;
  createdAt: Date;
}

export class SecretStore {
  constructor(private readonly db: Database) {}

  async insert(q: Orm, row: SecretRow): Promise<void> {
    await q.insert(this.db.t.secrets).values(row);
  }

  async get(id: string): Promise<SecretRow | null> {
    if (!isUuid(id)) return null;
    const { secrets } = this.db.t;
    const rows = await this.db.read((q) => q.select().from(secrets).where(eq(secrets.id, id.toLowerCase())));
    return rows[0] ?? null;
  }

  /** Whether a row was deleted. */
  async delete(q: Orm, id: string): Promise<boolean> {
    const { secrets } = this.db.t;
    return (await q.delete(secrets).where(eq(secrets.id, id)).returning({ id: secrets.id })).length > 0;
  }
}
