// Compiled guards are immutable, so an index rebuild can reuse the ones whose schema did not
// change instead of generating code for every guard again. Bounded, least recently used first out.
import { compileGuardSchema, type CompileGuardResult } from './compile.ts';

export class GuardCache {
  private readonly entries = new Map<string, CompileGuardResult>();

  constructor(private readonly capacity = 5000) {}

  /** The compile result for `schema`, keyed by its JSON text. */
  compile(schema: unknown): CompileGuardResult {
    let key: string | undefined;
    try {
      key = JSON.stringify(schema);
    } catch {
      key = undefined;
    }
    if (key === undefined) return compileGuardSchema(schema);
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const result = compileGuardSchema(schema);
    this.entries.set(key, result);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return result;
  }

  get size(): number {
    return this.entries.size;
  }
}
