// Secrets for MCP credentials (DESIGN §5 Tools): create and delete through the API; the value is
// sealed before it reaches the database and opened only for server code (reveal), never answered.
import type { Database } from '../core/db/index.ts';
import type { Principal } from '../core/identity/index.ts';
import { inWorkspace, isAdmin } from '../core/identity/index.ts';
import { creationWorkspace, type WorkspaceStore } from '../core/identity/index.ts';
import { forbidden, notFound } from '../core/http/index.ts';
import { validBody } from '../core/http/index.ts';
import { recordChange } from '../audit/index.ts';
import { secretCreateValidator } from './schema.ts';
import type { SecretCipher } from './crypto.ts';
import type { SecretRow, SecretStore } from './store.ts';

export interface SecretServiceDeps {
  db: Database;
  store: SecretStore;
  cipher: SecretCipher;
  workspaces: WorkspaceStore;
}

/** What the API answers about a secret: never its value. */
export type SecretRecord = Omit<SecretRow, 'value' | 'createdBy'>;

/** The row's identity, authenticated with the sealed value: it opens only in that row. */
const bindingOf = (row: Pick<SecretRow, 'id' | 'workspaceId'>) => `${row.workspaceId}/${row.id}`;

export class SecretService {
  constructor(private readonly deps: SecretServiceDeps) {}

  /** POST /secrets: AGENT_ADMIN of the workspace or INSTANCE_ADMIN. */
  async create(principal: Principal, rawBody: unknown): Promise<SecretRecord> {
    const body = validBody(rawBody, secretCreateValidator);
    const workspaceId = await creationWorkspace(this.deps.workspaces, principal, body.workspaceId);
    assertMayManage(principal);
    const id = crypto.randomUUID();
    const row: SecretRow = {
      id,
      workspaceId,
      name: body.name,
      value: this.deps.cipher.seal(body.value, bindingOf({ id, workspaceId })),
      createdBy: principal.id,
      createdAt: new Date(),
    };
    const { db, store } = this.deps;
    await db.write(async (q) => {
      await store.insert(q, row);
      await recordChange(db, q, principal, { action: 'secret.create', resourceType: 'secret', resourceId: id, workspaceId, beforeVersion: null, afterVersion: null, details: { name: row.name } });
    });
    return { id, workspaceId, name: row.name, createdAt: row.createdAt };
  }

  /** DELETE /secrets/{id}: 404 when absent or in a workspace the caller does not see. */
  async delete(principal: Principal, id: string): Promise<void> {
    const row = await this.deps.store.get(id);
    if (!row || !inWorkspace(principal, row.workspaceId)) throw notFound('Secret');
    assertMayManage(principal);
    const { db, store } = this.deps;
    const deleted = await db.write(async (q) => {
      if (!(await store.delete(q, row.id))) return false;
      await recordChange(db, q, principal, { action: 'secret.delete', resourceType: 'secret', resourceId: row.id, workspaceId: row.workspaceId, beforeVersion: null, afterVersion: null, details: { name: row.name } });
      return true;
    });
    if (!deleted) throw notFound('Secret');
  }

  /**
   * The plaintext, for server code only (the MCP client): null when the secret does not exist or
   * belongs to another workspace. Throws SecretUnreadableError when the stored value does not
   * open with this instance's key; its message names the secret, never a value.
   */
  async reveal(workspaceId: string, secretId: string): Promise<string | null> {
    const row = await this.deps.store.get(secretId);
    if (!row || row.workspaceId !== workspaceId) return null;
    return this.deps.cipher.open(row.value, bindingOf(row), `Secret ${row.id}`);
  }
}

function assertMayManage(principal: Principal): void {
  if (!isAdmin(principal) && !principal.roles.includes('AGENT_ADMIN')) throw forbidden('Managing secrets needs AGENT_ADMIN of the workspace or INSTANCE_ADMIN');
}
