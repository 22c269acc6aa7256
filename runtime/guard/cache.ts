// Compiled guards are immutable, so an index rebuild reuses the ones whose schema did not change
// instead of compiling every guard again: each change rebuilds the whole index, and a few large
// guards made every change (anywhere) hold the serving thread for seconds. Generational: a build
// keeps what it used, and what the build before used and this one did not is let go, so nothing
// outlives the index that holds it.
import { compileGuardSchema, type CompileGuardResult } from './compile.ts';

export class GuardCache {
  private previous = new Map<string, CompileGuardResult>();
  private current = new Map<string, CompileGuardResult>();

  /** The compile result for `schema`, keyed by its JSON text. */
  compile(schema: unknown): CompileGuardResult {
    let key: string | undefined;
    try {
      key = JSON.stringify(schema);
    } catch {
      key = undefined;
    }
    if (key === undefined) return compileGuardSchema(schema);
    let result = this.current.get(key) ?? this.previous.get(key);
    if (!result) result = compileGuardSchema(schema);
    this.current.set(key, result);
    return result;
  }

  /** One build is done: the next keeps what this one used, and nothing older. */
  nextGeneration(): void {
    this.previous = this.current;
    this.current = new Map();
  }

  /** Guards held: those of the last finished build and of the one under way. */
  get size(): number {
    let n = this.current.size;
    for (const key of this.previous.keys()) if (!this.current.has(key)) n++;
    return n;
  }
}
