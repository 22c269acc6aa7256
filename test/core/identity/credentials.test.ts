// Authentication over the control plane: API keys, JWTs, roles and platform access (DESIGN §2).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.ts';
import { plausibleApiKey, generateApiKey } from '../../../src/core/identity/api-keys.ts';

const SECRET = 'test-jwt-secret-with-at-least-32-characters!!';
const ISSUER = 'https://issuer.test';
const AUDIENCE = 'platform-tests';
let p: TestPlatform;
let userId: string;

beforeAll(async () => {
  p = await startTestPlatform({ JWT_SECRET: SECRET, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE });
  const user = await p.json<{ id: string }>('POST', '/api/v1/users', {
    body: { name: 'Ann', email: 'ann@example.com', roles: ['AGENT_USER'], platformAccess: true },
  });
  userId = user.body.id;
});
afterAll(() => p.close());

const me = (key: string | null) => p.json('GET', '/api/v1/me', { key });
/** An HS256 token over a payload given as JSON text, for claims JSON.stringify cannot write (1e400). */
const signText = (payload: string) => {
  const part = (text: string) => Buffer.from(text).toString('base64url');
  const input = `${part('{"alg":"HS256","typ":"JWT"}')}.${part(payload)}`;
  return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`;
};
const sign = (claims: Record<string, unknown>, alg = 'HS256', secret = SECRET) =>
  new SignJWT(claims).setProtectedHeader({ alg }).sign(new TextEncoder().encode(secret));
const now = () => Math.floor(Date.now() / 1000);

describe('API keys', () => {
  test('missing header → 401 problem with WWW-Authenticate', async () => {
    const r = await me(null);
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
    expect(r.body).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });

  test('malformed and unknown keys → 401', async () => {
    for (const key of ['sk-short', 'not-a-key-at-all-but-long-enough-to-try', 'sk-unknown-key-0123456789abcdefghijklmnop']) {
      expect((await me(key)).status).toBe(401);
    }
  });

  test('a generated key with a wrong checksum is refused before any database lookup', async () => {
    const good = generateApiKey();
    expect(plausibleApiKey(good)).toBe(true);
    const last = good.at(-1) === 'A' ? 'B' : 'A';
    const bad = good.slice(0, -1) + last;
    expect(plausibleApiKey(bad)).toBe(false);
    // Observable: even a closed database does not matter for a checksum failure.
    const q = await startTestPlatform();
    await q.db.close();
    expect((await q.json('GET', '/api/v1/me', { key: bad })).status).toBe(401);
  });

  test('issued key works; revoked key → 401 at once in this process', async () => {
    const created = await p.json<{ id: string; key: string }>('POST', '/api/v1/api-keys', { body: { principalId: userId, name: 'k1' } });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^sk-plt_[0-9A-Za-z]{46}$/);
    expect((await me(created.body.key)).body).toMatchObject({ id: userId, kind: 'USER' });
    expect((await p.call('DELETE', `/api/v1/api-keys/${created.body.id}`)).status).toBe(204);
    expect((await me(created.body.key)).status).toBe(401);
  });

  test('expired key → 401', async () => {
    const created = await p.json<{ key: string; id: string }>('POST', '/api/v1/api-keys', {
      body: { principalId: userId, name: 'short', expiresAt: new Date(Date.now() + 1500).toISOString() },
    });
    expect((await me(created.body.key)).status).toBe(200);
    await Bun.sleep(1600);
    expect((await me(created.body.key)).status).toBe(401);
  });

  test('expiresAt takes an ISO 8601 date (midnight UTC) or date-time; anything else or a past one → 422', async () => {
    const dated = await p.json<{ key: string; expiresAt: string }>('POST', '/api/v1/api-keys', { body: { principalId: userId, name: 'dated', expiresAt: '2099-01-31' } });
    expect(dated.status).toBe(201);
    expect(dated.body.expiresAt).toBe('2099-01-31T00:00:00.000Z');
    expect((await me(dated.body.key)).status).toBe(200);
    const offset = await p.json<{ expiresAt: string }>('POST', '/api/v1/api-keys', { body: { principalId: userId, name: 'offset', expiresAt: '2099-01-31T02:00:00+02:00' } });
    expect(offset.body.expiresAt).toBe('2099-01-31T00:00:00.000Z');
    // Days a month does not have are refused, not rolled over into the next month.
    for (const expiresAt of ['2099-13-01', '31/01/2099', 'tomorrow', '2001-01-01', '2099-02-29', '2099-02-30T00:00:00Z', '2099-04-31T12:00:00Z', '2099-01-01T24:00:00Z']) {
      const r = await p.json<{ errors: { pointer: string }[] }>('POST', '/api/v1/api-keys', { body: { principalId: userId, name: 'bad', expiresAt } });
      expect(r.status).toBe(422);
      expect(r.body.errors[0]!.pointer).toBe('/expiresAt');
    }
    // null, as a key record shows "never": accepted, and the key never expires.
    const forever = await p.json<{ key: string; expiresAt: string | null }>('POST', '/api/v1/api-keys', { body: { principalId: userId, name: 'forever', expiresAt: null } });
    expect(forever.status).toBe(201);
    expect(forever.body.expiresAt).toBeNull();
    expect((await me(forever.body.key)).status).toBe(200);
  });

  test('a key is stored only as its SHA-256 digest', async () => {
    const created = await p.json<{ key: string; id: string }>('POST', '/api/v1/api-keys', { body: { name: 'mine' } });
    const rows = await p.db.read((q) => q.select().from(p.db.t.apiKeys));
    const row = rows.find((r) => r.id === created.body.id)!;
    expect(row.keyHash).toBe(new Bun.CryptoHasher('sha256').update(created.body.key).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(created.body.key);
  });

  test('GET /api-keys is a list-engine list of the active keys: envelope, paging, filter, another principal only for an admin', async () => {
    const names = ['list-a', 'list-b', 'list-c'];
    const ids: string[] = [];
    for (const name of names) ids.push((await p.json<{ id: string }>('POST', '/api/v1/api-keys', { body: { principalId: userId, name } })).body.id);
    await p.call('DELETE', `/api/v1/api-keys/${ids[1]}`);
    const filter = encodeURIComponent(JSON.stringify({ field: 'name', op: 'like', value: 'list-%' }));
    const page = await p.json<{ data: Record<string, unknown>[]; meta: Record<string, unknown> }>('GET', `/api/v1/api-keys?principalId=${userId}&filter=${filter}&sort=-name&count=true&limit=1`);
    expect(page.status).toBe(200);
    expect(page.body.meta).toEqual({ offset: 0, limit: 1, hasMore: true, count: 2 });
    expect(page.body.data).toEqual([{ id: ids[2], principalId: userId, name: 'list-c', expiresAt: null, revokedAt: null, lastUsedAt: null, createdAt: expect.any(String) }]);
    expect(JSON.stringify(page.body)).not.toContain('keyHash');
    const bad = await p.json<{ code: string; errors: { pointer: string }[] }>('GET', '/api/v1/api-keys?limit=abc');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]!.pointer).toBe('/query/limit');
    const userKey = (await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: userId, name: 'mine' } })).body.key;
    expect((await p.json('GET', `/api/v1/api-keys?principalId=${p.boot.adminPrincipalId}`, { key: userKey })).status).toBe(403);
    const own = await p.json<{ data: { principalId: string }[] }>('GET', '/api/v1/api-keys', { key: userKey });
    expect(own.body.data.length).toBeGreaterThan(0);
    expect(own.body.data.every((k) => k.principalId === userId)).toBe(true);
  });

  test('GET /workspaces is a list-engine list: an admin sees all, others their own', async () => {
    const created = await p.json<{ id: string }>('POST', '/api/v1/workspaces', { body: { name: 'listed-ws' } });
    const all = await p.json<{ data: { id: string; name: string }[]; meta: Record<string, unknown> }>('GET', '/api/v1/workspaces?count=true');
    expect(all.body.meta).toMatchObject({ offset: 0, limit: 100, hasMore: false });
    expect(all.body.data.map((w) => w.name)).toEqual(expect.arrayContaining(['default', 'listed-ws']));
    const named = await p.json<{ data: { id: string }[] }>('GET', `/api/v1/workspaces?filter=${encodeURIComponent(JSON.stringify({ field: 'name', op: 'eq', value: 'listed-ws' }))}&fields=id`);
    expect(named.body.data).toEqual([{ id: created.body.id }]);
    const userKey = (await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: userId, name: 'ws' } })).body.key;
    const mine = await p.json<{ data: { name: string }[] }>('GET', '/api/v1/workspaces', { key: userKey });
    expect(mine.body.data.map((w) => w.name)).toEqual(['default']);
  });

  test('a principal may not create or revoke keys of another; admin may', async () => {
    const own = await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: userId, name: 'own' } });
    const other = await p.json('POST', '/api/v1/api-keys', { key: own.body.key, body: { principalId: p.boot.adminPrincipalId, name: 'x' } });
    expect(other.status).toBe(403);
    const adminKeys = await p.json<{ data: { id: string }[] }>('GET', '/api/v1/api-keys');
    const victim = adminKeys.body.data[0]!.id;
    expect((await p.call('DELETE', `/api/v1/api-keys/${victim}`, { key: own.body.key })).status).toBe(404);
  });

  test('a new key and a minted token are answered with Cache-Control: no-store', async () => {
    const key = await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: userId, name: 'uncached' } });
    expect(key.status).toBe(201);
    expect(key.headers.get('cache-control')).toBe('no-store');
    const token = await p.json('POST', '/api/v1/auth/token', { key: key.body.key });
    expect(token.status).toBe(200);
    expect(token.headers.get('cache-control')).toBe('no-store');
  });

  test('an id spelled in capitals names the same principal: in a body, a query and a JWT subject', async () => {
    const upper = userId.toUpperCase();
    const key = await p.json<{ key: string; principalId: string }>('POST', '/api/v1/api-keys', { body: { principalId: upper, name: 'capitals' } });
    expect(key.status).toBe(201);
    expect(key.body.principalId).toBe(userId);
    const listed = await p.json<{ data: { name: string }[] }>('GET', `/api/v1/api-keys?principalId=${upper}`);
    expect(listed.body.data.map((k) => k.name)).toContain('capitals');
    const group = await p.json<{ memberIds: string[] }>('POST', '/api/v1/groups', { body: { name: 'capitals', memberIds: [upper] } });
    expect(group.status).toBe(201);
    expect(group.body.memberIds).toEqual([userId]);
    expect((await me(await sign({ sub: upper, exp: now() + 60, iss: ISSUER, aud: AUDIENCE }))).body).toMatchObject({ id: userId });
  });
});

describe('JWTs', () => {
  test('a valid HS256 token with exp, iss and aud authenticates', async () => {
    const token = await sign({ sub: userId, exp: now() + 60, iss: ISSUER, aud: AUDIENCE });
    expect((await me(token)).body).toMatchObject({ id: userId });
  });

  test.each([
    ['alg none', async () => new UnsecuredJWT({ sub: userId, exp: now() + 60, iss: ISSUER, aud: AUDIENCE }).encode()],
    ['HS512 when HS256 is configured', () => sign({ sub: userId, exp: now() + 60, iss: ISSUER, aud: AUDIENCE }, 'HS512')],
    ['expired', () => sign({ sub: userId, exp: now() - 60, iss: ISSUER, aud: AUDIENCE })],
    ['future nbf', () => sign({ sub: userId, exp: now() + 600, nbf: now() + 300, iss: ISSUER, aud: AUDIENCE })],
    ['wrong aud', () => sign({ sub: userId, exp: now() + 60, iss: ISSUER, aud: 'someone-else' })],
    ['wrong iss', () => sign({ sub: userId, exp: now() + 60, iss: 'https://evil.test', aud: AUDIENCE })],
    ['missing exp', () => sign({ sub: userId, iss: ISSUER, aud: AUDIENCE })],
    ['exp of 1e400 (Infinity: never expiring)', async () => signText(`{"sub":"${userId}","exp":1e400,"iss":"${ISSUER}","aud":"${AUDIENCE}"}`)],
    ['wrong secret', () => sign({ sub: userId, exp: now() + 60, iss: ISSUER, aud: AUDIENCE }, 'HS256', 'another-secret-of-sufficient-length-000')],
    ['unknown subject', () => sign({ sub: crypto.randomUUID(), exp: now() + 60, iss: ISSUER, aud: AUDIENCE })],
    ['jku header is not followed', () =>
      new SignJWT({ sub: userId, exp: now() + 60, iss: ISSUER, aud: AUDIENCE })
        .setProtectedHeader({ alg: 'RS256', jku: 'http://127.0.0.1:1/keys' } as never)
        .sign(new TextEncoder().encode(SECRET))
        .catch(() => 'eyJhbGciOiJSUzI1NiIsImprdSI6Imh0dHA6Ly8xMjcuMC4wLjE6MS9rZXlzIn0.e30.sig')],
  ])('%s → 401', async (_name, make) => {
    const r = await me(await make());
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  test('POST /auth/token mints a token that authenticates as the caller', async () => {
    const key = await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: userId, name: 't' } });
    const minted = await p.json<{ token: string; tokenType: string; expiresAt: string }>('POST', '/api/v1/auth/token', { key: key.body.key });
    expect(minted.status).toBe(200);
    expect(minted.body.tokenType).toBe('Bearer');
    expect(Date.parse(minted.body.expiresAt)).toBeGreaterThan(Date.now());
    expect((await me(minted.body.token)).body).toMatchObject({ id: userId });
  });

  test('a token minted from an API key, and one minted from that token, end when the key is revoked', async () => {
    const key = await p.json<{ id: string; key: string }>('POST', '/api/v1/api-keys', { body: { principalId: userId, name: 'origin' } });
    const first = await p.json<{ token: string }>('POST', '/api/v1/auth/token', { key: key.body.key });
    const renewed = await p.json<{ token: string }>('POST', '/api/v1/auth/token', { key: first.body.token });
    const other = await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: userId, name: 'other' } });
    const unrelated = await p.json<{ token: string }>('POST', '/api/v1/auth/token', { key: other.body.key });
    for (const token of [first.body.token, renewed.body.token, unrelated.body.token]) expect((await me(token)).status).toBe(200);
    expect((await p.call('DELETE', `/api/v1/api-keys/${key.body.id}`)).status).toBe(204);
    // Within the credential cache's 2 s (DESIGN §2 promises 5 s).
    await Bun.sleep(2100);
    for (const token of [first.body.token, renewed.body.token]) {
      const r = await me(token);
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ code: 'UNAUTHORIZED' });
    }
    // Another key's token is untouched.
    expect((await me(unrelated.body.token)).status).toBe(200);
  });

  test('a token minted from an expiring key ends when the key expires', async () => {
    const key = await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: userId, name: 'brief', expiresAt: new Date(Date.now() + 1500).toISOString() } });
    const minted = await p.json<{ token: string }>('POST', '/api/v1/auth/token', { key: key.body.key, body: { ttlSeconds: 3600 } });
    expect((await me(minted.body.token)).status).toBe(200);
    await Bun.sleep(3700);
    expect((await me(minted.body.token)).status).toBe(401);
  });
});

describe('roles, platform access and disabling', () => {
  test('a role the route does not accept → 403', async () => {
    const key = await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: userId, name: 'r' } });
    const r = await p.json('POST', '/api/v1/users', { key: key.body.key, body: { name: 'x', email: 'x@y.z', roles: [], platformAccess: true } });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'FORBIDDEN' });
  });

  test('platform access off → 403 on the control plane, but /me and /auth/token still answer', async () => {
    const u = await p.json<{ id: string }>('POST', '/api/v1/users', { body: { name: 'NoAccess', email: 'na@example.com', roles: ['AGENT_ADMIN'], platformAccess: false } });
    const key = await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: u.body.id, name: 'n' } });
    const agents = await p.json('GET', '/api/v1/agents', { key: key.body.key });
    expect(agents.status).toBe(403);
    expect(agents.body).toMatchObject({ code: 'PLATFORM_ACCESS_DISABLED' });
    expect((await me(key.body.key)).status).toBe(200);
    expect((await p.json('POST', '/api/v1/auth/token', { key: key.body.key })).status).toBe(200);
  });

  test('a DISABLED user and an inactive service account → 401', async () => {
    const u = await p.json<{ id: string }>('POST', '/api/v1/users', { body: { name: 'Dis', email: 'dis@example.com', roles: ['AGENT_USER'], platformAccess: true } });
    const uk = await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: u.body.id, name: 'd' } });
    expect((await me(uk.body.key)).status).toBe(200);
    expect((await p.json('PATCH', `/api/v1/users/${u.body.id}`, { body: { status: 'DISABLED' } })).body).toMatchObject({ status: 'DISABLED' });
    expect((await me(uk.body.key)).status).toBe(401);

    const sa = await p.json<{ id: string }>('POST', '/api/v1/service-accounts', { body: { name: 'bot', roles: ['ENDPOINT_INVOKE'], platformAccess: true } });
    expect(sa.body).toMatchObject({ kind: 'SERVICE_ACCOUNT', active: true });
    const sk = await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: sa.body.id, name: 's' } });
    expect((await me(sk.body.key)).status).toBe(200);
    await p.json('PATCH', `/api/v1/service-accounts/${sa.body.id}`, { body: { active: false } });
    expect((await me(sk.body.key)).status).toBe(401);
  });

  test('a change made by another process is honoured within 5 seconds (cache expiry)', async () => {
    const u = await p.json<{ id: string }>('POST', '/api/v1/users', { body: { name: 'Far', email: 'far@example.com', roles: ['AGENT_USER'], platformAccess: true } });
    const key = await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: u.body.id, name: 'f' } });
    expect((await me(key.body.key)).status).toBe(200);
    // Bypass the service (and its cache invalidation), as another process would.
    await p.principals.update(u.body.id, { active: false });
    let status = 200;
    const deadline = Date.now() + 5000;
    while (status === 200 && Date.now() < deadline) {
      await Bun.sleep(250);
      status = (await me(key.body.key)).status;
    }
    expect(status).toBe(401);
  });
});

describe('RS256 with JWT_PUBLIC_KEY', () => {
  test('external RS256 tokens verify with the configured key; HS256 ones without the platform kid do not; platform-minted ones still do', async () => {
    const { generateKeyPair, exportSPKI } = await import('jose');
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const q = await startTestPlatform({ JWT_PUBLIC_KEY: await exportSPKI(publicKey), JWT_SECRET: SECRET });
    try {
      const sub = q.boot.adminPrincipalId;
      const rs = await new SignJWT({ sub, exp: now() + 60 }).setProtectedHeader({ alg: 'RS256' }).sign(privateKey);
      expect((await q.json('GET', '/api/v1/me', { key: rs })).status).toBe(200);
      expect((await q.json('GET', '/api/v1/me', { key: await sign({ sub, exp: now() + 60 }) })).status).toBe(401);
      const minted = await q.json<{ token: string }>('POST', '/api/v1/auth/token');
      expect((await q.json('GET', '/api/v1/me', { key: minted.body.token })).status).toBe(200);
      const other = await generateKeyPair('RS256');
      const forged = await new SignJWT({ sub, exp: now() + 60 }).setProtectedHeader({ alg: 'RS256' }).sign(other.privateKey);
      expect((await q.json('GET', '/api/v1/me', { key: forged })).status).toBe(401);
    } finally {
      await q.close();
    }
  });
});

describe('shutdown', () => {
  test('a database that hangs holds close() for CLOSE_FLUSH_WAIT_MS at most (key-use timestamps are only advisory)', async () => {
    const { CLOSE_FLUSH_WAIT_MS, CredentialResolver } = await import('../../../src/core/identity/credentials.ts');
    const hanging = { touchKeys: () => new Promise<void>(() => {}) } as unknown as ConstructorParameters<typeof CredentialResolver>[0];
    const resolver = new CredentialResolver(hanging, p.jwt);
    // A key used since the last flush (what authenticating with one records).
    (resolver as unknown as { touched: Set<string> }).touched.add(crypto.randomUUID());
    const started = performance.now();
    await resolver.close();
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(CLOSE_FLUSH_WAIT_MS - 100);
    expect(took).toBeLessThan(CLOSE_FLUSH_WAIT_MS + 2000);
  });
});
