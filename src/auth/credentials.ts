// Resolves a bearer credential (API key or JWT) to a principal, with a short cache so that
// revocation and disabling take effect within seconds (DESIGN §2 promises 5 s).
import { ProblemError } from '../http/problem.ts';
import { TtlCache } from '../lib/ttl-cache.ts';
import { digestsEqual, hashApiKey, plausibleApiKey } from './api-keys.ts';
import type { JwtService } from './jwt.ts';
import type { PrincipalStore } from './principals.ts';
import type { Principal } from './roles.ts';

/** Cache lifetime: well inside the 5 s promise, long enough to keep lookups off the hot path. */
export const CREDENTIAL_CACHE_MS = 2000;
/**
 * How long a known answer still serves when the database cannot be asked: the runtime keeps
 * answering through an outage instead of failing every caller once the short cache lapses.
 * A revocation made meanwhile cannot be read anyway; it applies once the database answers again.
 */
export const CREDENTIAL_STALE_MS = 5 * 60_000;
const TOUCH_FLUSH_MS = 5000;

interface CachedKey {
  keyId: string;
  principal: Principal | null;
  expiresAt: number | null;
}

export class CredentialResolver {
  private readonly keys = new TtlCache<string, CachedKey | null>(CREDENTIAL_CACHE_MS);
  private readonly principals = new TtlCache<string, Principal | null>(CREDENTIAL_CACHE_MS);
  private readonly lastKeys = new TtlCache<string, CachedKey | null>(CREDENTIAL_STALE_MS);
  private readonly lastPrincipals = new TtlCache<string, Principal | null>(CREDENTIAL_STALE_MS);
  /** Whether an API key (by id) is still usable: a token minted from it lives only as long. */
  private readonly keyStates = new TtlCache<string, boolean>(CREDENTIAL_CACHE_MS);
  private readonly lastKeyStates = new TtlCache<string, boolean>(CREDENTIAL_STALE_MS);
  private readonly touched = new Set<string>();
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly store: PrincipalStore,
    private readonly jwt: JwtService,
  ) {
    this.timer = setInterval(() => void this.flushTouches(), TOUCH_FLUSH_MS);
    this.timer.unref?.();
  }

  /** The authenticated principal, or a 401 problem. Disabled and inactive principals are refused. */
  async authenticate(token: string | undefined): Promise<Principal> {
    if (!token) throw unauthorized('A bearer credential is required');
    const principal = token.startsWith('sk-') ? await this.fromApiKey(token) : await this.fromJwt(token);
    if (!principal) throw unauthorized('The credential is invalid, expired or revoked');
    if (!principal.active) throw unauthorized('The principal is disabled');
    return principal;
  }

  /**
   * The hot path's answer for a cached, usable API key, without a promise; undefined whenever the
   * full check must run (not cached, not an API key, expired, revoked, disabled), which then
   * answers or refuses exactly as `authenticate` does.
   */
  cachedApiKey(token: string | undefined): Principal | undefined {
    const cached = token === undefined ? undefined : this.keys.get(token);
    const principal = cached === undefined ? null : this.use(cached);
    return principal?.active ? principal : undefined;
  }

  /** A principal by id when the short cache holds it: null for a known miss, undefined when the store must be asked. */
  cachedPrincipal(id: string): Principal | null | undefined {
    return this.principals.get(id);
  }

  /** Drops every cached answer (called after a change in this process). */
  invalidate(): void {
    this.keys.clear();
    this.principals.clear();
    this.lastKeys.clear();
    this.lastPrincipals.clear();
    this.keyStates.clear();
    this.lastKeyStates.clear();
  }

  /** Records the last key uses; a database that hangs holds shutdown for 2 s at most (they are only timestamps). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    let timer: Timer | undefined;
    await Promise.race([this.flushTouches(), new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000)))]);
    clearTimeout(timer);
  }

  private async fromApiKey(key: string): Promise<Principal | null> {
    // The cache is keyed by the key itself: a hit costs one map lookup on the hot path.
    let cached = this.keys.get(key);
    if (cached === undefined) {
      if (!plausibleApiKey(key)) return null; // refused before touching the database
      const digest = hashApiKey(key);
      try {
        const row = await this.store.keyByHash(digest);
        cached =
          row && row.revokedAt === null && digestsEqual(row.keyHash, digest)
            ? { keyId: row.id, principal: await this.principal(row.principalId), expiresAt: row.expiresAt?.getTime() ?? null }
            : null;
        this.lastKeys.set(key, cached);
      } catch (error) {
        cached = this.lastKeys.get(key);
        if (cached === undefined) throw error;
      }
      this.keys.set(key, cached);
    }
    return this.use(cached);
  }

  /** A cached key's principal unless it has expired; counts the key as used. */
  private use(cached: CachedKey | null): Principal | null {
    if (!cached || (cached.expiresAt !== null && cached.expiresAt <= Date.now())) return null;
    this.touched.add(cached.keyId);
    return cached.principal;
  }

  /**
   * The API key a credential derives from: the key itself, or the key a platform token was minted
   * from (carried on when a token is exchanged for another); undefined for other credentials.
   */
  async originKeyId(token: string | undefined): Promise<string | undefined> {
    if (!token) return undefined;
    if (token.startsWith('sk-')) {
      await this.fromApiKey(token);
      return this.keys.get(token)?.keyId;
    }
    if (token.length > 8192 || token.split('.').length !== 3) return undefined;
    return (await this.jwt.verify(token))?.apiKeyId;
  }

  /** Not revoked and not expired, cached like credentials (revocation honoured within seconds). */
  private keyUsable(id: string): Promise<boolean> {
    return this.lookup(this.keyStates, this.lastKeyStates, id, async () => {
      const key = await this.store.getKey(id);
      return key !== null && key.revokedAt === null && (key.expiresAt === null || key.expiresAt.getTime() > Date.now());
    });
  }

  private async fromJwt(token: string): Promise<Principal | null> {
    if (token.length > 8192 || token.split('.').length !== 3) return null;
    const claims = await this.jwt.verify(token);
    // A token minted from an API key ends with the key: revoked or expired, the token is too.
    if (claims?.apiKeyId !== undefined && !(await this.keyUsable(claims.apiKeyId))) return null;
    const principal = claims ? await this.principal(claims.sub) : null;
    // A copy: cached principals are shared, the delegation belongs to this token only.
    return principal && claims?.delegation ? { ...principal, context: { delegation: claims.delegation } } : principal;
  }

  /** A principal by id, cached like credentials (the runtime resolves execution accounts this way). */
  principal(id: string): Promise<Principal | null> {
    return this.lookup(this.principals, this.lastPrincipals, id, async () => (/^[0-9a-f-]{36}$/i.test(id) ? await this.store.get(id) : null));
  }

  /**
   * The short cache's answer, else the store's (kept as the stale answer too), else, while the
   * store cannot be asked, the last known one (CREDENTIAL_STALE_MS); with none, the store's error.
   */
  private async lookup<V>(fresh: TtlCache<string, V>, stale: TtlCache<string, V>, key: string, load: () => Promise<V>): Promise<V> {
    let value = fresh.get(key);
    if (value === undefined) {
      try {
        value = await load();
        stale.set(key, value);
      } catch (error) {
        value = stale.get(key);
        if (value === undefined) throw error;
      }
      fresh.set(key, value);
    }
    return value;
  }

  /** Writes pending `lastUsedAt` updates now (they are otherwise batched every few seconds). */
  flushUsage(): Promise<void> {
    return this.flushTouches();
  }

  private async flushTouches(): Promise<void> {
    if (this.touched.size === 0) return;
    const ids = [...this.touched];
    this.touched.clear();
    try {
      await this.store.touchKeys(ids, new Date());
    } catch {
      // lastUsedAt is advisory; a failed flush must not take anything else down
    }
  }
}

export const unauthorized = (detail: string) =>
  new ProblemError(401, 'UNAUTHORIZED', detail, { headers: { 'www-authenticate': 'Bearer' } });
