// Holds the runtime index and swaps it atomically; a failed load keeps the last good index serving.
import type { Logger } from '../../src/core/index.ts';
import type { IndexSnapshot } from '../../src/core/definitions/index.ts';
import type { RuntimeIndex } from './compiled.ts';
import { compileIndex } from './compile.ts';
import { GuardCache } from '../guard/index.ts';

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
  /** Guards of the index served, reused by the next build where their schema is unchanged. */
  private readonly guards = new GuardCache();

  constructor(private readonly log: Logger) {}

  get current(): RuntimeIndex | null {
    return this.index;
  }

  get version(): number {
    return this.index?.version ?? -1;
  }

  /**
   * Loads a snapshot from `source` and swaps it in unless an equal or newer one is already served.
   * Loads may overlap, so one stuck on the database never holds back the next; the version check
   * and the swap happen together (synchronously), so an older snapshot never replaces a newer one
   * unless `replace` says the database itself is behind what is served.
   */
  async refresh(source: () => Promise<IndexSnapshot>, options: { replace?: boolean } = {}): Promise<void> {
    let snapshot: IndexSnapshot;
    try {
      snapshot = await source();
    } catch (error) {
      this.lastError = error instanceof Error ? error.message : String(error);
      this.log.warn(`index load failed; serving version ${this.version}`, { error: this.lastError });
      throw error;
    }
    if (this.index && snapshot.version <= this.index.version && !options.replace) return;
    this.install(snapshot);
  }

  private install(snapshot: IndexSnapshot): void {
    const { index, skipped } = compileIndex(snapshot, this.guards);
    for (const s of skipped) this.log.warn(`endpoint ${s.id} left out of index ${snapshot.version}: ${s.reason}`);
    this.index = index;
    this.lastError = null;
    this.lastLoadedAt = new Date().toISOString();
  }

  health(): IndexHealth {
    return { loaded: this.index !== null, version: this.index?.version ?? null, lastError: this.lastError, lastLoadedAt: this.lastLoadedAt };
  }
}
