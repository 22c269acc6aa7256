// Holds the runtime index and swaps it atomically; a failed load keeps the last good index serving.
import type { Logger } from '../../src/lib/log.ts';
import type { IndexSnapshot } from '../../src/endpoints/index-snapshot.ts';
import type { RuntimeIndex } from './compiled.ts';
import { compileIndex } from './compile.ts';

export interface IndexHealth {
  loaded: boolean;
  version: number | null;
  lastError: string | null;
  lastLoadedAt: string | null;
}

export class IndexHolder {
  private index: RuntimeIndex | null = null;
  private lastError: string | null = null;
  private lastLoadedAt: string | null = null;
  private loading: Promise<void> = Promise.resolve();

  constructor(private readonly log: Logger) {}

  get current(): RuntimeIndex | null {
    return this.index;
  }

  get version(): number {
    return this.index?.version ?? -1;
  }

  /**
   * Loads a snapshot from `source` and swaps it in unless an equal or newer one is already served.
   * Loads are serialised so an older snapshot can never replace a newer one.
   */
  refresh(source: () => Promise<IndexSnapshot>, force = false): Promise<void> {
    const run = this.loading.then(async () => {
      try {
        const snapshot = await source();
        if (!force && this.index && snapshot.version <= this.index.version) return;
        this.install(snapshot);
      } catch (error) {
        this.lastError = error instanceof Error ? error.message : String(error);
        this.log.warn(`index load failed; serving version ${this.version}`, { error: this.lastError });
        throw error;
      }
    });
    this.loading = run.catch(() => undefined);
    return run;
  }

  /** Installs a snapshot already in hand (e.g. read from Redis). */
  install(snapshot: IndexSnapshot): void {
    const { index, skipped } = compileIndex(snapshot);
    for (const s of skipped) this.log.warn(`endpoint ${s.id} left out of index ${snapshot.version}: ${s.reason}`);
    this.index = index;
    this.lastError = null;
    this.lastLoadedAt = new Date().toISOString();
  }

  health(): IndexHealth {
    return { loaded: this.index !== null, version: this.index?.version ?? null, lastError: this.lastError, lastLoadedAt: this.lastLoadedAt };
  }
}
