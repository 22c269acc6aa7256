// A bounded map whose entries expire: credential and principal lookups are cached briefly.

/** Renewing an entry before it lapses, so that a key in steady use never goes through a miss. */
export interface RefreshAhead<K> {
  /** The first read within this long of an entry's expiry starts `refresh` (once per entry). */
  aheadMs: number;
  /** Reloads the key and `set`s it; called without waiting, its failures are its own. */
  refresh(key: K): void;
}

export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number; refreshing: boolean }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly ahead?: RefreshAhead<K>,
  ) {}

  get(key: K, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    if (this.ahead && !entry.refreshing && entry.expiresAt - now <= this.ahead.aheadMs) {
      entry.refreshing = true;
      this.ahead.refresh(key);
    }
    return entry.value;
  }

  set(key: K, value: V, now = Date.now(), ttlMs = this.ttlMs): void {
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt: now + ttlMs, refreshing: false });
  }

  clear(): void {
    this.entries.clear();
  }
}
