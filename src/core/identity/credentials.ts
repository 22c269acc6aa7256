// Resolves a bearer credential (API key or JWT) to a principal, with a short cache so that
// revocation and disabling take effect within seconds (DESIGN §2 promises 5 s).
import { ProblemError } from '../http/index.ts';
import { type RefreshAhead, TtlCache } from '../lib/index.ts';
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
const CREDENTIAL_STALE_MS = 5 * 60_000;
/**
 * How long a caller with a last known answer waits for the database before that answer serves: a
 * database that hangs (rather than refuses) would otherwise hold every caller whose cached answer
 * lapsed for the whole connect timeout (5 s), every cache lifetime. The lookup goes on, and its
 * answer, revoked or not, is what the next caller gets.
 */
const STALE_WAIT_MS = 500;
const TOUCH_FLUSH_MS = 5000;
/** How long close() waits to record the last key uses (they are only timestamps). */
export const CLOSE_FLUSH_WAIT_MS = 1000;
/**
 * A cached answer read in its last half second is reloaded in the background (once), so a
 * credential in steady use never lapses: otherwise every request in flight when it did would miss
 * and wait for the database together (on Postgres under load, 50–120 ms of p99). The answer still
 * lives CREDENTIAL_CACHE_MS from its own lookup, so revocation is as prompt as before.
 */
const REFRESH_AHEAD_MS = 500;

interface CachedKey {
  keyId: string;
  principal: Principal | null;
  expiresAt: number | null;
}

export class CredentialResolver {
  private readonly keys = new TtlCache<string, CachedKey | null>(CREDENTIAL_CACHE_MS, 10_000, this.ahead((key) => this.loadKey(key)));
  private readonly principals = new TtlCache<string, Principal | null>(CREDENTIAL_CACHE_MS, 10_000, this.ahead((id) => this.loadPrincipal(id)));
  private readonly lastKeys = new TtlCache<string, CachedKey | null>(CREDENTIAL_STALE_MS);
  private readonly lastPrincipals = new TtlCache<string, Principal | null>(CREDENTIAL_STALE_MS);
  /** Whether an API key (by id) is still usable: a token minted from it lives only as long. */
  private readonly keyStates = new TtlCache<string, boolean>(CREDENTIAL_CACHE_MS, 10_000, this.ahead((id) => this.loadKeyState(id)));
  private readonly lastKeyStates = new TtlCache<string, boolean>(CREDENTIAL_STALE_MS);
  /** Lookups under way, by what they look up: concurrent misses share one. */
  private readonly flights = new Map<string, Promise<unknown>>();
  /** Bumped by invalidate(): a lookup that started before it does not put its answer in the caches. */
  private generation = 0;
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
    this.generation++;
    this.flights.clear();
    this.keys.clear();
    this.principals.clear();
    this.lastKeys.clear();
    this.lastPrincipals.clear();
    this.keyStates.clear();
    this.lastKeyStates.clear();
  }

  /** Records the last key uses; a database that hangs holds shutdown for CLOSE_FLUSH_WAIT_MS at most. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    let timer: Timer | undefined;
    await Promise.race([this.flushTouches(), new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_FLUSH_WAIT_MS)))]);
    clearTimeout(timer);
  }

  private async fromApiKey(key: string): Promise<Principal | null> {
    // The cache is keyed by the key itself: a hit costs one map lookup on the hot path.
    let cached = this.keys.get(key);
    if (cached === undefined) {
      if (!plausibleApiKey(key)) return null; // refused before touching the database
      cached = await this.loadKey(key);
    }
    return this.use(cached);
  }

  private loadKey(key: string): Promise<CachedKey | null> {
    return this.load(this.keys, this.lastKeys, key, `key:${key}`, async () => {
      const digest = hashApiKey(key);
      const row = await this.store.keyByHash(digest);
      // The key's principal is read now, not from the principal cache: an answer taken from there
      // could be 2 s old already, and disabling would then land only after both lifetimes.
      return row && row.revokedAt === null && digestsEqual(row.keyHash, digest)
        ? { keyId: row.id, principal: await this.loadPrincipal(row.principalId), expiresAt: row.expiresAt?.getTime() ?? null }
        : null;
    });
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
    const cached = this.keyStates.get(id);
    return cached !== undefined ? Promise.resolve(cached) : this.loadKeyState(id);
  }

  private loadKeyState(id: string): Promise<boolean> {
    return this.load(this.keyStates, this.lastKeyStates, id, `key-state:${id}`, async () => {
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
    const cached = this.principals.get(id);
    return cached !== undefined ? Promise.resolve(cached) : this.loadPrincipal(id);
  }

  private loadPrincipal(id: string): Promise<Principal | null> {
    return this.load(this.principals, this.lastPrincipals, id, `principal:${id}`, async () => (/^[0-9a-f-]{36}$/i.test(id) ? await this.store.get(id) : null));
  }

  /**
   * The store's answer (kept as the stale answer too), else, while the store cannot be asked, the
   * last known one (CREDENTIAL_STALE_MS); with none, the store's error. One lookup per `flight` at
   * a time: callers missing the same entry together share it. A caller for whom a last known answer
   * exists waits STALE_WAIT_MS at most.
   */
  private load<V>(fresh: TtlCache<string, V>, stale: TtlCache<string, V>, key: string, flight: string, load: () => Promise<V>): Promise<V> {
    const lookup = (this.flights.get(flight) as Promise<V> | undefined) ?? this.lookup(fresh, stale, key, flight, load);
    const known = stale.get(key);
    if (known === undefined) return lookup;
    const generation = this.generation;
    let timer: Timer | undefined;
    const late = new Promise<V>((resolve) => {
      timer = setTimeout(() => {
        // Callers meanwhile take it at once; the lookup's own answer replaces it when it comes.
        if (generation === this.generation) fresh.set(key, known);
        resolve(known);
      }, STALE_WAIT_MS);
    });
    return Promise.race([lookup, late]).finally(() => clearTimeout(timer));
  }

  private lookup<V>(fresh: TtlCache<string, V>, stale: TtlCache<string, V>, key: string, flight: string, load: () => Promise<V>): Promise<V> {
    const generation = this.generation;
    const lookup = (async () => {
      let value: V | undefined;
      try {
        value = await load();
        if (generation === this.generation) stale.set(key, value);
      } catch (error) {
        value = stale.get(key);
        if (value === undefined) throw error;
      }
      if (generation === this.generation) fresh.set(key, value);
      return value;
    })().finally(() => {
      if (this.flights.get(flight) === lookup) this.flights.delete(flight);
    });
    this.flights.set(flight, lookup);
    return lookup;
  }

  private ahead(refresh: (key: string) => Promise<unknown>): RefreshAhead<string> {
    return { aheadMs: REFRESH_AHEAD_MS, refresh: (key) => void refresh(key).catch(() => {}) };
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

const unauthorized = (detail: string) =>
  new ProblemError(401, 'UNAUTHORIZED', detail, { headers: { 'www-authenticate': 'Bearer' } });
