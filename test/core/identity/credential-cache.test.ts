// The credential cache under load: callers missing together share one lookup, a credential in
// steady use is reloaded before it lapses (no request ever waits for the database for it), and a
// revocation is still honoured within the cache's lifetime.
import { describe, expect, test } from 'bun:test';
import { CREDENTIAL_CACHE_MS, CredentialResolver } from '../../../src/core/identity/credentials.ts';
import { generateApiKey, hashApiKey } from '../../../src/core/identity/api-keys.ts';
import type { Principal } from '../../../src/core/identity/roles.ts';
import { TtlCache } from '../../../src/core/lib/ttl-cache.ts';

/** A store answering one key after `delayMs`, counting what it is asked. */
function countingStore(key: string, delayMs = 20) {
  const principal: Principal = {
    id: crypto.randomUUID(), kind: 'USER', name: 'Ann', email: 'ann@example.com', roles: ['ENDPOINT_INVOKE'], platformAccess: true,
    active: true, workspaceIds: [], groupIds: [], createdAt: new Date(),
  };
  const row = { id: crypto.randomUUID(), principalId: principal.id, keyHash: hashApiKey(key), expiresAt: null as Date | null, revokedAt: null as Date | null };
  const asked = { keys: 0, principals: 0 };
  const store = {
    async keyByHash(digest: string) {
      asked.keys++;
      // Read at once, answered later: what a query in flight sees.
      const read = digest === row.keyHash ? { ...row } : null;
      await Bun.sleep(delayMs);
      return read;
    },
    async get(id: string) {
      asked.principals++;
      const read = id === principal.id ? { ...principal } : null;
      await Bun.sleep(delayMs);
      return read;
    },
    async touchKeys() {},
  };
  return { store: store as unknown as ConstructorParameters<typeof CredentialResolver>[0], row, principal, asked };
}

const jwt = {} as ConstructorParameters<typeof CredentialResolver>[1];

describe('TtlCache with refresh-ahead', () => {
  test('the first read in the last stretch before expiry starts one refresh; expiry itself does not move', () => {
    const refreshed: string[] = [];
    const cache = new TtlCache<string, number>(2000, 10, { aheadMs: 500, refresh: (k) => refreshed.push(k) });
    cache.set('a', 1, 0);
    expect(cache.get('a', 1000)).toBe(1);
    expect(refreshed).toEqual([]);
    expect(cache.get('a', 1600)).toBe(1);
    expect(cache.get('a', 1700)).toBe(1);
    expect(refreshed).toEqual(['a']);
    // Not renewed in time: the entry lapses at its own expiry.
    expect(cache.get('a', 2000)).toBeUndefined();
    // A new answer starts a new lifetime, with its own refresh.
    cache.set('a', 2, 2100);
    expect(cache.get('a', 3700)).toBe(2);
    expect(refreshed).toEqual(['a', 'a']);
  });
});

describe('CredentialResolver', () => {
  test('callers missing the same key together share one lookup', async () => {
    const key = generateApiKey();
    const { store, principal, asked } = countingStore(key);
    const resolver = new CredentialResolver(store, jwt);
    try {
      const answers = await Promise.all(Array.from({ length: 64 }, () => resolver.authenticate(key)));
      expect(answers.every((p) => p.id === principal.id)).toBe(true);
      expect(asked).toEqual({ keys: 1, principals: 1 });
    } finally {
      await resolver.close();
    }
  });

  test('a key in steady use never lapses, and a revocation still lands within the cache lifetime', async () => {
    const key = generateApiKey();
    const { store, row, asked } = countingStore(key, 5);
    const resolver = new CredentialResolver(store, jwt);
    try {
      await resolver.authenticate(key);
      // Used every 50 ms for three cache lifetimes: always answered from the cache, without a wait.
      const until = Date.now() + 3 * CREDENTIAL_CACHE_MS;
      let misses = 0;
      while (Date.now() < until) {
        if (resolver.cachedApiKey(key) === undefined) misses++;
        await Bun.sleep(50);
      }
      expect(misses).toBe(0);
      // Reloaded in the background about once per lifetime, not once per request.
      expect(asked.keys).toBeGreaterThanOrEqual(3);
      expect(asked.keys).toBeLessThanOrEqual(5);

      row.revokedAt = new Date();
      const revoked = Date.now();
      while (resolver.cachedApiKey(key) !== undefined && Date.now() - revoked < 3 * CREDENTIAL_CACHE_MS) await Bun.sleep(50);
      expect(resolver.cachedApiKey(key)).toBeUndefined();
      expect(Date.now() - revoked).toBeLessThanOrEqual(CREDENTIAL_CACHE_MS + 250);
      await expect(resolver.authenticate(key)).rejects.toMatchObject({ status: 401 });
    } finally {
      await resolver.close();
    }
  }, 15_000);

  test('a principal disabled while its key is in steady use is refused within one cache lifetime', async () => {
    const key = generateApiKey();
    const { store, principal } = countingStore(key, 5);
    const resolver = new CredentialResolver(store, jwt);
    try {
      await resolver.authenticate(key);
      const started = Date.now();
      // Disabled before the key's first reload: that reload must read the principal as it is
      // then, not the cached copy from the key's first lookup.
      let disabledAt = 0;
      let refusedAt = 0;
      while (Date.now() - started < 3 * CREDENTIAL_CACHE_MS && refusedAt === 0) {
        if (disabledAt === 0 && Date.now() - started >= CREDENTIAL_CACHE_MS / 2) {
          principal.active = false;
          disabledAt = Date.now();
        }
        if (disabledAt !== 0 && resolver.cachedApiKey(key) === undefined) refusedAt = Date.now();
        else resolver.cachedApiKey(key);
        await Bun.sleep(25);
      }
      expect(refusedAt).toBeGreaterThan(0);
      expect(refusedAt - disabledAt).toBeLessThanOrEqual(CREDENTIAL_CACHE_MS / 2 + 500);
    } finally {
      await resolver.close();
    }
  }, 15_000);

  test('with the database hung, a lapsed answer is served from the last known one after a short wait, not after the lookup gives up', async () => {
    const key = generateApiKey();
    const { store, principal, row, asked } = countingStore(key, 5);
    const resolver = new CredentialResolver(store, jwt);
    try {
      expect((await resolver.authenticate(key)).id).toBe(principal.id);
      // From now on the database takes every question and answers none.
      const hung = store as unknown as { keyByHash: () => Promise<never>; get: () => Promise<never> };
      hung.keyByHash = () => new Promise<never>(() => {});
      hung.get = () => new Promise<never>(() => {});
      await Bun.sleep(CREDENTIAL_CACHE_MS + 50);
      // Before: held until the lookup failed (the database client's connect timeout), here forever.
      expect((await resolver.authenticate(key)).id).toBe(principal.id);
      expect(asked.keys).toBe(1);
      // Callers meanwhile take the same answer at once, sharing the one lookup still under way.
      const many = await Promise.all(Array.from({ length: 8 }, () => resolver.authenticate(key)));
      expect(many.every((p) => p.id === principal.id)).toBe(true);
      // Revoked while the database hung: the answer the database gives once it answers wins.
      row.revokedAt = new Date();
      (store as unknown as { keyByHash: (d: string) => Promise<unknown> }).keyByHash = async (digest: string) => (digest === row.keyHash ? { ...row } : null);
      resolver.invalidate();
      await expect(resolver.authenticate(key)).rejects.toMatchObject({ status: 401 });
    } finally {
      await resolver.close();
    }
  });

  test('an answer looked up before invalidate() is not cached after it', async () => {
    const key = generateApiKey();
    const { store, row, asked } = countingStore(key, 50);
    const resolver = new CredentialResolver(store, jwt);
    try {
      const before = resolver.authenticate(key);
      await Bun.sleep(10);
      // The key is revoked and this process says so while the first lookup is still under way.
      row.revokedAt = new Date();
      resolver.invalidate();
      expect((await before).id).toBeDefined(); // answered from what it read
      await expect(resolver.authenticate(key)).rejects.toMatchObject({ status: 401 });
      expect(asked.keys).toBe(2);
    } finally {
      await resolver.close();
    }
  });
});
