// The secrets store (DESIGN §5 Tools): create and delete with rights and validation, values never
// answered and sealed at rest (AES-256-GCM, bound to their row), reveal for server code only.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { ADMIN_KEY, startTestPlatform, type TestPlatform, userKey } from '../helpers/platform.ts';
import { databaseCases, dropPostgresSchema } from '../helpers/databases.ts';
import { tempDir } from '../helpers/temp.ts';
import { SecretCipher, SecretService, SecretStore, SecretUnreadableError } from '../../src/secrets/index.ts';
import { WorkspaceStore } from '../../src/core/identity/workspaces.ts';

const VALUE = 'ghp_s3cr3t-T0ken-value-0123456789';

for (const database of databaseCases()) describe(`on ${database.name}`, () => {
  let p: TestPlatform;
  let defaultWs: string;
  let otherWs: string;
  const keys: Record<string, string> = {};

  async function principal(name: string, roles: string[], workspaceIds?: string[]) {
    keys[name] = await userKey(p, name, roles, workspaceIds);
  }

  beforeAll(async () => {
    p = await startTestPlatform(database.env, { postgresSchema: database.postgresSchema });
    defaultWs = p.boot.defaultWorkspaceId;
    otherWs = (await p.json<{ id: string }>('POST', '/api/v1/workspaces', { body: { name: 'other' } })).body.id;
    await principal('agentAdmin', ['AGENT_ADMIN']);
    await principal('agentUser', ['AGENT_USER']);
    await principal('componentAdmin', ['COMPONENT_ADMIN']);
    await principal('stranger', ['AGENT_ADMIN'], [otherWs]);
  });
  afterAll(async () => {
    await p.close();
    await dropPostgresSchema(database.postgresSchema);
  });

  const create = (body: unknown, key: string | null = keys.agentAdmin!) => p.call('POST', '/api/v1/secrets', { key, body });
  const createJson = (body: unknown, key: string | null = keys.agentAdmin!) => p.json<Record<string, any>>('POST', '/api/v1/secrets', { key, body });
  const remove = (id: string, key: string | null = keys.agentAdmin!) => p.json<Record<string, any>>('DELETE', `/api/v1/secrets/${id}`, { key });
  const storedRow = async (id: string) => (await p.db.read((q) => q.select().from(p.db.t.secrets).where(eq(p.db.t.secrets.id, id))))[0];

  test('create: 201 {id, name, workspaceId, createdAt} in the caller\'s first workspace; the value is nowhere in the answer', async () => {
    const response = await create({ name: 'GitHub token', value: VALUE });
    expect(response.status).toBe(201);
    const text = await response.text();
    expect(text).not.toContain(VALUE);
    const body = JSON.parse(text);
    expect(Object.keys(body).sort()).toEqual(['createdAt', 'id', 'name', 'workspaceId']);
    expect(body).toMatchObject({ name: 'GitHub token', workspaceId: defaultWs });
    expect(Date.now() - Date.parse(body.createdAt)).toBeLessThan(60_000);
    expect(await p.secrets.reveal(defaultWs, body.id)).toBe(VALUE);
  });

  test('INSTANCE_ADMIN creates in any workspace; AGENT_ADMIN only in its own (404 elsewhere); other roles 403', async () => {
    const there = await createJson({ name: 'n', value: 'v', workspaceId: otherWs }, ADMIN_KEY);
    expect(there.status).toBe(201);
    expect(there.body.workspaceId).toBe(otherWs);
    expect((await createJson({ name: 'n', value: 'v', workspaceId: otherWs })).status).toBe(404);
    expect((await createJson({ name: 'n', value: 'v', workspaceId: crypto.randomUUID() })).status).toBe(404);
    for (const role of ['agentUser', 'componentAdmin']) {
      const refused = await createJson({ name: 'n', value: VALUE }, keys[role]);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('FORBIDDEN');
    }
    expect((await createJson({ name: 'n', value: 'v' }, null)).status).toBe(401);
  });

  test('delete: 204, then 404; invisible (another workspace, unknown, malformed id) is 404; other roles 403', async () => {
    const id = (await createJson({ name: 'doomed', value: VALUE })).body.id as string;
    expect((await remove(id, keys.stranger)).status).toBe(404);
    expect((await remove(id, keys.agentUser)).status).toBe(403);
    expect((await remove(id, keys.componentAdmin)).status).toBe(403);
    expect(await p.secrets.reveal(defaultWs, id)).toBe(VALUE);
    const done = await p.call('DELETE', `/api/v1/secrets/${id}`, { key: keys.agentAdmin });
    expect(done.status).toBe(204);
    expect(await done.text()).toBe('');
    expect(await p.secrets.reveal(defaultWs, id)).toBeNull();
    expect(await storedRow(id)).toBeUndefined();
    const again = await remove(id);
    expect(again.status).toBe(404);
    expect(again.headers.get('content-type')).toContain('application/problem+json');
    expect((await remove(crypto.randomUUID())).status).toBe(404);
    expect((await remove('not-a-uuid')).status).toBe(404);
    // The instance administrator deletes anywhere.
    const there = (await createJson({ name: 'there', value: 'v' }, keys.stranger)).body.id as string;
    expect((await remove(there, keys.agentAdmin)).status).toBe(404);
    expect((await p.json('DELETE', `/api/v1/secrets/${there}`)).status).toBe(204);
  });

  test('validation: 422 problem+json with a pointer for every violation, never echoing the value', async () => {
    const all = await createJson({ name: '', value: '', workspaceId: 'nope', extra: 1 });
    expect(all.status).toBe(422);
    expect(all.body.code).toBe('VALIDATION_FAILED');
    expect(all.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/extra', '/name', '/value', '/workspaceId']);
    const missing = await createJson({});
    expect(missing.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/name', '/value']);
    expect((await createJson({ name: 'a'.repeat(201), value: 'v' })).body.errors).toEqual([expect.objectContaining({ pointer: '/name' })]);
    expect((await createJson({ name: 'a'.repeat(200), value: 'v' })).status).toBe(201);
    const long = `${VALUE}${'x'.repeat(65_537 - VALUE.length)}`;
    const tooLong = await create({ name: 'big', value: long });
    expect(tooLong.status).toBe(422);
    const text = await tooLong.text();
    expect(text).not.toContain(VALUE);
    expect(JSON.parse(text).errors).toEqual([expect.objectContaining({ pointer: '/value' })]);
    // The bound counts characters: 65536 astral characters are 131072 UTF-16 units.
    expect((await createJson({ name: 'big', value: '😀'.repeat(65_536) })).status).toBe(201);
    expect((await createJson({ name: 'n', value: 42 })).body.errors).toEqual([expect.objectContaining({ pointer: '/value' })]);
    expect((await p.json('POST', '/api/v1/secrets', { key: keys.agentAdmin })).status).toBe(400);
    expect((await p.call('POST', '/api/v1/secrets', { key: keys.agentAdmin, raw: '{"name":', headers: { 'content-type': 'application/json' } })).status).toBe(400);
  });

  test('at rest the value is sealed: not in the row in any form, and the same value seals differently twice', async () => {
    const a = (await createJson({ name: 'a', value: VALUE })).body.id as string;
    const b = (await createJson({ name: 'b', value: VALUE })).body.id as string;
    const rowA = (await storedRow(a))!;
    const rowB = (await storedRow(b))!;
    for (const row of [rowA, rowB]) {
      const stored = JSON.stringify(row);
      expect(stored).not.toContain(VALUE);
      expect(stored).not.toContain(Buffer.from(VALUE).toString('base64'));
      expect(stored).not.toContain(Buffer.from(VALUE).toString('hex'));
      const sealed = Buffer.from(row.value, 'base64');
      expect(sealed.toString('base64')).toBe(row.value);
      expect(sealed.length).toBe(12 + Buffer.byteLength(VALUE) + 16); // iv ‖ ciphertext ‖ tag
      expect(sealed.includes(Buffer.from(VALUE))).toBe(false);
    }
    expect(rowA.value).not.toBe(rowB.value);
    expect(rowA.value.slice(0, 16)).not.toBe(rowB.value.slice(0, 16)); // fresh iv each time
  });

  test('reveal round-trips any text; null for an unknown id, a malformed id or another workspace', async () => {
    const text = 'pässwörd 😀\n"quoted" \\ ' + '\u00a0'.repeat(3);
    const id = (await createJson({ name: 'unicode', value: text })).body.id as string;
    expect(await p.secrets.reveal(defaultWs, id)).toBe(text);
    expect(await p.secrets.reveal(defaultWs, id.toUpperCase())).toBe(text);
    expect(await p.secrets.reveal(otherWs, id)).toBeNull();
    expect(await p.secrets.reveal(defaultWs, crypto.randomUUID())).toBeNull();
    expect(await p.secrets.reveal(defaultWs, 'secret-1')).toBeNull();
  });

  test('another key does not decrypt: a clean SecretUnreadableError naming the secret, never garbage', async () => {
    const id = (await createJson({ name: 'keyed', value: VALUE })).body.id as string;
    const otherKey = new SecretService({ db: p.db, store: new SecretStore(p.db), cipher: new SecretCipher('another-key-of-more-than-32-characters!'), workspaces: new WorkspaceStore(p.db) });
    const error = await otherKey.reveal(defaultWs, id).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(SecretUnreadableError);
    expect((error as Error).message).toContain(id);
    expect((error as Error).message).not.toContain(VALUE);
  });

  test('a sealed value copied into another row (or workspace) does not open there', async () => {
    const source = (await createJson({ name: 'source', value: VALUE })).body.id as string;
    const target = (await createJson({ name: 'target', value: 'other value' })).body.id as string;
    const sealed = (await storedRow(source))!.value;
    await p.db.read((q) => q.update(p.db.t.secrets).set({ value: sealed }).where(eq(p.db.t.secrets.id, target)));
    await expect(p.secrets.reveal(defaultWs, target)).rejects.toBeInstanceOf(SecretUnreadableError);
    await p.db.read((q) => q.update(p.db.t.secrets).set({ workspaceId: otherWs }).where(eq(p.db.t.secrets.id, source)));
    await expect(p.secrets.reveal(otherWs, source)).rejects.toBeInstanceOf(SecretUnreadableError);
  });

  test('create and delete are audit rows (actor, action, target, name), without the value', async () => {
    const id = (await createJson({ name: 'audited', value: VALUE })).body.id as string;
    expect((await remove(id)).status).toBe(204);
    const { audit } = p.db.t;
    const rows = await p.db.read((q) => q.select().from(audit).where(eq(audit.resourceId, id)));
    expect(rows.map((r) => [r.action, r.kind, r.resourceType, r.workspaceId, r.details]).sort()).toEqual([
      ['secret.create', 'change', 'secret', defaultWs, { name: 'audited' }],
      ['secret.delete', 'change', 'secret', defaultWs, { name: 'audited' }],
    ]);
    expect(new Set(rows.map((r) => r.actorId)).size).toBe(1);
    expect(JSON.stringify(rows)).not.toContain(VALUE);
  });
});

describe('the key', () => {
  test('without SECRETS_KEY one is generated once into DATA_DIR/secrets-key (0600) and survives a restart', async () => {
    const dataDir = tempDir('secrets-key');
    const env = { DATA_DIR: dataDir, DATABASE_URL: `sqlite:${join(dataDir, 'platform.db')}` };
    const first = await startTestPlatform(env);
    let id: string;
    try {
      id = (await first.json<{ id: string }>('POST', '/api/v1/secrets', { body: { name: 'kept', value: VALUE } })).body.id;
      const file = join(dataDir, 'secrets-key');
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      await first.close();
    }
    const second = await startTestPlatform(env);
    try {
      expect(await second.secrets.reveal(second.boot.defaultWorkspaceId, id)).toBe(VALUE);
    } finally {
      await second.close();
    }
    // Another key on the same database reads nothing of it.
    const third = await startTestPlatform({ ...env, SECRETS_KEY: 'a-configured-key-of-at-least-32-chars' });
    try {
      await expect(third.secrets.reveal(third.boot.defaultWorkspaceId, id)).rejects.toBeInstanceOf(SecretUnreadableError);
    } finally {
      await third.close();
    }
  });

  test('with SECRETS_KEY no key file is made', async () => {
    const p = await startTestPlatform({ SECRETS_KEY: 'a-configured-key-of-at-least-32-chars' });
    try {
      const id = (await p.json<{ id: string }>('POST', '/api/v1/secrets', { body: { name: 'k', value: VALUE } })).body.id;
      expect(await p.secrets.reveal(p.boot.defaultWorkspaceId, id)).toBe(VALUE);
      expect(existsSync(join(p.config.DATA_DIR, 'secrets-key'))).toBe(false);
    } finally {
      await p.close();
    }
  });
});
