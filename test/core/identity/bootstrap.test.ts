// Bootstrap and key bookkeeping: the generated admin key is shown once, a configured one is
// registered idempotently, and key use is recorded off the request path.
import { expect, test } from 'bun:test';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../src/core/config.ts';
import { jwtSecret } from '../../../src/bootstrap.ts';
import { createPlatform } from '../../../src/platform.ts';
import { silentLogger, type Logger } from '../../../src/core/log.ts';
import { createExecutor } from '../../../runtime/executor/index.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp.ts';

async function boot(dir: string, env: Record<string, string> = {}, log: Logger = silentLogger) {
  const executor = await createExecutor({ isolation: 'worker', log: () => {} });
  const config = loadConfig({ DATA_DIR: dir, DATABASE_URL: `sqlite:${join(dir, 'p.db')}`, COMPONENT_ISOLATION: 'worker', ...env });
  const platform = await createPlatform(config, log, { executor });
  return { platform, close: async () => { await platform.close(); await executor.close(); } };
}

test('a generated bootstrap key is created on the first start only, and works', async () => {
  const dir = tempDir('boot');
  const first = await boot(dir);
  const key = first.platform.boot.generatedAdminKey!;
  expect(key).toMatch(/^sk-plt_/);
  expect(first.platform.boot.newInstance).toBe(true);
  await first.close();
  const second = await boot(dir);
  expect(second.platform.boot.generatedAdminKey).toBeUndefined();
  expect(second.platform.boot.newInstance).toBe(false);
  const me = await second.platform.app.handle(new Request('http://localhost/api/v1/me', { headers: { authorization: `Bearer ${key}` } }));
  expect(((await me.json()) as { roles: string[] }).roles).toEqual(['INSTANCE_ADMIN']);
  await second.close();
});

test('PLATFORM_ADMIN_API_KEY is registered as given, idempotently, for the same admin', async () => {
  const dir = tempDir('boot');
  const given = 'sk-operator-chosen-key-0123456789abcdef';
  const first = await boot(dir, { PLATFORM_ADMIN_API_KEY: given });
  expect(first.platform.boot.generatedAdminKey).toBeUndefined();
  const adminId = first.platform.boot.adminPrincipalId;
  await first.close();
  const second = await boot(dir, { PLATFORM_ADMIN_API_KEY: given });
  expect(second.platform.boot.adminPrincipalId).toBe(adminId);
  const keys = await second.platform.db.read((q) => q.select().from(second.platform.db.t.apiKeys));
  expect(keys).toHaveLength(1);
  const me = await second.platform.app.handle(new Request('http://localhost/api/v1/me', { headers: { authorization: `Bearer ${given}` } }));
  expect(((await me.json()) as { id: string }).id).toBe(adminId);
  await second.close();
});

test('a revoked PLATFORM_ADMIN_API_KEY stays revoked across restarts, and the start says so', async () => {
  const dir = tempDir('boot');
  const given = 'sk-operator-chosen-key-revoked-0123456789';
  const first = await boot(dir, { PLATFORM_ADMIN_API_KEY: given });
  const auth = { authorization: `Bearer ${given}` };
  const [key] = await first.platform.db.read((q) => q.select().from(first.platform.db.t.apiKeys));
  const revoked = await first.platform.app.handle(new Request(`http://localhost/api/v1/api-keys/${key!.id}`, { method: 'DELETE', headers: auth }));
  expect(revoked.status).toBe(204);
  await first.close();
  const warnings: string[] = [];
  const second = await boot(dir, { PLATFORM_ADMIN_API_KEY: given }, { ...silentLogger, warn: (message) => warnings.push(message) });
  const me = await second.platform.app.handle(new Request('http://localhost/api/v1/me', { headers: auth }));
  expect(me.status).toBe(401);
  expect(warnings.some((w) => w.startsWith('PLATFORM_ADMIN_API_KEY was revoked and stays revoked'))).toBe(true);
  await second.close();
});

test('key use is recorded as lastUsedAt, in a batch after the request', async () => {
  const p = await startTestPlatform();
  try {
    const created = await p.json<{ id: string; key: string }>('POST', '/api/v1/api-keys', { body: { name: 'used' } });
    const lastUsed = async () => (await p.db.read((q) => q.select().from(p.db.t.apiKeys))).find((k) => k.id === created.body.id)!.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    expect((await p.json('GET', '/api/v1/me', { key: created.body.key })).status).toBe(200);
    expect(await lastUsed()).toBeNull(); // not on the request path
    await p.credentials.flushUsage();
    expect((await lastUsed())!.getTime()).toBeGreaterThan(Date.now() - 60_000);
  } finally {
    await p.close();
  }
});

test('processes starting together on a fresh data directory agree on one generated JWT secret', async () => {
  const dir = tempDir('jwt-race');
  const script = `import { jwtSecret } from ${JSON.stringify(join(import.meta.dir, '../../../src/bootstrap.ts'))};
import { loadConfig } from ${JSON.stringify(join(import.meta.dir, '../../../src/core/config.ts'))};
process.stdout.write(jwtSecret(loadConfig({ DATA_DIR: ${JSON.stringify(dir)} })));`;
  const file = join(dir, 'race.ts');
  await Bun.write(file, script);
  const runs = Array.from({ length: 8 }, () => Bun.spawn([process.execPath, file], { stdout: 'pipe', stderr: 'pipe' }));
  const outputs = await Promise.all(runs.map(async (p) => ({ code: await p.exited, out: await new Response(p.stdout).text(), err: await new Response(p.stderr).text() })));
  for (const o of outputs) expect(o).toMatchObject({ code: 0, err: '' });
  expect(new Set(outputs.map((o) => o.out)).size).toBe(1);
  expect(outputs[0]!.out.length).toBeGreaterThanOrEqual(32);
  expect(readdirSync(dir).sort()).toEqual(['jwt-secret', 'race.ts']); // no drafts left
  expect(statSync(join(dir, 'jwt-secret')).mode & 0o777).toBe(0o600);
});

test('a damaged (empty or short) generated JWT secret stops the start with a message naming the file', () => {
  const dir = tempDir('jwt-short');
  writeFileSync(join(dir, 'jwt-secret'), '\n', { mode: 0o600 });
  expect(() => jwtSecret(loadConfig({ DATA_DIR: dir }))).toThrow(ConfigError);
  expect(() => jwtSecret(loadConfig({ DATA_DIR: dir }))).toThrow(`${join(dir, 'jwt-secret')}: the generated JWT secret is shorter than 32 characters`);
});
