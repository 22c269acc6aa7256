// JSON equality as JSON Schema defines it (for enum, const and uniqueItems): numbers by value
// (so 1 equals 1.0 and 0 equals -0), objects by key set regardless of order, arrays in order.

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const key of ka) {
    if (!Object.hasOwn(b, key)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/**
 * Index pair of the first two equal items, or undefined when all are distinct. Primitives go
 * through a Set (SameValueZero already equates 0 and -0); objects and arrays are compared by a
 * canonical text, so the whole check stays linear instead of pairwise.
 */
export function firstDuplicate(items: readonly unknown[]): [number, number] | undefined {
  const seen = new Map<unknown, number>();
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const key = typeof item === 'object' && item !== null ? '\u0000' + canonical(item) : typeof item === 'string' ? '\u0001' + item : item;
    const earlier = seen.get(key);
    if (earlier !== undefined) return [earlier, i];
    seen.set(key, i);
  }
  return undefined;
}

function canonical(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value === 0 ? 0 : value);
  if (Array.isArray(value)) return '[' + value.map(canonical).join(',') + ']';
  const keys = Object.keys(value).sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonical((value as Record<string, unknown>)[k])).join(',') + '}';
}
