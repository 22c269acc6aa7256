// Remembered answers of a guard's `$ref` checks within one check (./emit.ts).
import type { Check } from './kinds.ts';

/**
 * Answers of `$ref` checks on object and array values, per check: anyOf/oneOf branches that
 * recurse through a reference would otherwise check the same subtree again in every branch,
 * 2^depth times for two branches (a body nested 22 deep took 2.8 s).
 */
export class RefMemo {
  used = false;
  private answers = new Map<string, WeakMap<object, boolean>>();

  reset(): void {
    this.answers = new Map();
  }

  check(id: string, value: unknown, check: Check): boolean {
    if (value === null || typeof value !== 'object') return check(value);
    let byValue = this.answers.get(id);
    if (!byValue) this.answers.set(id, (byValue = new WeakMap()));
    const known = byValue.get(value);
    if (known !== undefined) return known;
    const answer = check(value);
    byValue.set(value, answer);
    return answer;
  }
}
