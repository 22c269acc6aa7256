// Small shape checks shared by the parameter parsers; each throws a violation at its pointer.
import { fail, LIMITS } from '../model/index.ts';

export type Obj = Record<string, unknown>;

export function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function expectObject(value: unknown, pointer: string, what = 'an object'): Obj {
  if (!isObject(value)) fail(pointer, `expected ${what}`);
  return value;
}

/** Refuses keys outside `allowed` (a typo must not be silently ignored). */
export function onlyKeys(obj: Obj, allowed: readonly string[], pointer: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) fail(`${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, `unknown property '${clip(key)}'`);
  }
}

/** A non-empty name of bounded length. */
export function expectName(value: unknown, pointer: string, what = 'a name'): string {
  if (typeof value !== 'string' || value.length === 0) fail(pointer, `expected ${what}`);
  if (value.length > LIMITS.nameLength) fail(pointer, `${what} is longer than ${LIMITS.nameLength} characters`);
  return value;
}

/** A string value of bounded length without NUL (which Postgres cannot store in text). */
export function checkString(value: string, pointer: string): string {
  if (value.length > LIMITS.stringLength) fail(pointer, `the value is longer than ${LIMITS.stringLength} characters`);
  if (value.includes('\u0000')) fail(pointer, 'the value contains a NUL character');
  return value;
}

/** Checks every string (keys included) of a JSON value; returns how many scalars it holds. */
export function checkJsonValue(value: unknown, pointer: string): void {
  if (typeof value === 'string') checkString(value, pointer);
  else if (Array.isArray(value)) value.forEach((v, i) => checkJsonValue(v, `${pointer}/${i}`));
  else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      checkString(k, pointer);
      checkJsonValue(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    }
  } else if (typeof value === 'number' && !Number.isFinite(value)) fail(pointer, 'expected a finite number');
}

/** Shortens client text quoted back in a message. */
export function clip(text: string): string {
  const safe = text.replace(/[\u0000-\u001f\u007f]/g, '?');
  return safe.length > 64 ? `${safe.slice(0, 64)}…` : safe;
}

/** Counts what one request may bind in total, across all of its parameters. */
export interface Budget {
  predicates: number;
  values: number;
}

export function spendValues(budget: Budget, n: number, pointer: string): void {
  budget.values += n;
  if (budget.values > LIMITS.totalValues) fail(pointer, `the query binds more than ${LIMITS.totalValues} values`);
}
