// Compiled TypeBox validators that report every violation as a JSON pointer (DESIGN §3).
import type { Static, TSchema, TUnion } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { FormatRegistry } from '@sinclair/typebox';
import { ProblemError, type Violation } from './problem.ts';
import { isDate, isDateTime } from '../lib/index.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

// TypeBox ships no formats; register the ones the schemas use. The registry is process-global and
// Elysia fills it with looser checks of its own when it loads (its `date-time` takes a bare date),
// keeping whatever is there already: so ours are set unconditionally, and win in either order.
FormatRegistry.Set('uuid', (v) => UUID.test(v));
FormatRegistry.Set('uri', (v) => {
  if (v.length > 2048 || !/^[a-z][a-z0-9+.-]*:/i.test(v)) return false;
  return URL.canParse(v);
});
// A real calendar date and time (Date.parse rolls 2023-02-29 into March), that a Date can hold.
FormatRegistry.Set('date-time', (v) => DATE_TIME.test(v) && isDateTime(v) && !Number.isNaN(Date.parse(v)));
// A calendar date (YYYY-MM-DD, midnight UTC) or a date-time: what "ISO 8601" covers in DESIGN.
FormatRegistry.Set('date-or-date-time', (v) => ((DATE_TIME.test(v) && isDateTime(v)) || isDate(v)) && !Number.isNaN(Date.parse(v)));
// `markdown` only documents intent: any string is markdown.
FormatRegistry.Set('markdown', () => true);

export interface Validator<T> {
  /** Fast path: true when the value matches. */
  check(value: unknown): value is T;
  /** Every violation, pointers relative to `prefix` (e.g. `/query/filter`). */
  violations(value: unknown, prefix?: string): Violation[];
  schema: TSchema;
}

/** Compiles a schema once; call at module load, never per request. */
export function compile<S extends TSchema>(schema: S): Validator<Static<S>> {
  const compiled = TypeCompiler.Compile(schema);
  return {
    schema,
    // TypeBox counts a string's UTF-16 units against maxLength; JSON Schema (and the spec's
    // "characters") count code points, so a refusal for length alone is looked at again.
    check: (value): value is Static<S> => compiled.Check(value) || onlyUnitCounts(compiled.Errors(value)),
    violations(value, prefix = '') {
      const out: Violation[] = [];
      explain(filterUnitCounts(compiled.Errors(value)), prefix, out, new Set());
      return capped(out, prefix);
    },
  };
}

/**
 * A maxLength refusal of a string whose characters (code points) are within the bound; in a union
 * (a nullable string, say), one whose string branch would take it counted so.
 */
function unitCountOnly(error: ValueError): boolean {
  if (typeof error.value !== 'string') return false;
  if (error.type === ValueErrorType.StringMaxLength) return withinCodePoints(error.value, error.schema);
  if (error.type !== ValueErrorType.Union) return false;
  const value = error.value;
  return ((error.schema as TUnion).anyOf ?? []).some(
    (branch) => branch.type === 'string' && typeof branch.maxLength === 'number' && withinCodePoints(value, branch)
      && Value.Check({ ...branch, maxLength: 2 * branch.maxLength }, value),
  );
}

function withinCodePoints(value: string, schema: TSchema): boolean {
  const max = (schema as { maxLength?: number }).maxLength ?? Infinity;
  let points = 0;
  for (const _ of value) if (++points > max) return false;
  return true;
}

function onlyUnitCounts(errors: Iterable<ValueError>): boolean {
  for (const error of errors) if (!unitCountOnly(error)) return false;
  return true;
}

function* filterUnitCounts(errors: Iterable<ValueError>): Iterable<ValueError> {
  for (const error of errors) if (!unitCountOnly(error)) yield error;
}

/** Violations listed in one answer; a value with more gets the first ones and a note saying so. */
const MAX_VIOLATIONS = 100;

/**
 * At most MAX_VIOLATIONS; when `explain` found more (it stops at one past the limit), a last entry
 * at the value's root says the list was cut, so a client never takes a partial list for all.
 */
function capped(out: Violation[], prefix: string): Violation[] {
  if (out.length <= MAX_VIOLATIONS) return out;
  out.length = MAX_VIOLATIONS;
  out.push({ pointer: prefix, message: `More violations were found; only the first ${MAX_VIOLATIONS} are listed` });
  return out;
}

/**
 * Lower-cases, in place, every string a schema declares with `format: 'uuid'`: UUIDs are
 * case-insensitive, and ids are stored and compared in lower case (Postgres' uuid type does so on
 * its own, SQLite compares text). Run on a value that passed the schema. A union is followed
 * into every branch: a string only changes when it is a UUID where some branch expects one.
 */
export function normalizeUuids(schema: TSchema, value: unknown): unknown {
  const branches = (schema.anyOf ?? schema.oneOf ?? schema.allOf) as TSchema[] | undefined;
  if (branches) {
    let out = value;
    for (const branch of branches) out = normalizeUuids(branch, out);
    return out;
  }
  if (typeof value === 'string') {
    return schema.format === 'uuid' && UUID.test(value) ? value.toLowerCase() : value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const items = schema.items as TSchema | undefined;
    if (items && typeof items === 'object' && !Array.isArray(items)) for (let i = 0; i < value.length; i++) value[i] = normalizeUuids(items, value[i]);
    return value;
  }
  const properties = schema.properties as Record<string, TSchema> | undefined;
  const rest = typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as TSchema) : undefined;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const sub = properties && Object.hasOwn(properties, key) ? properties[key] : rest;
    if (sub) record[key] = normalizeUuids(sub, record[key]);
  }
  return value;
}

/**
 * Adds each error as a violation, keeping the first (most telling) message per pointer: a missing
 * required property is also reported as "expected <type>" at the same pointer. A value that fits
 * no branch of a union is explained by the branch it was meant for, so the pointer names the
 * offending property (`/guard/schema`), not the union (`/guard`).
 */
function explain(errors: Iterable<ValueError>, prefix: string, out: Violation[], seen: Set<string>): void {
  for (const error of errors) {
    if (out.length > MAX_VIOLATIONS) return;
    const pointer = prefix + error.path;
    if (error.type === ValueErrorType.Union && !Array.isArray((error.schema as { enum?: unknown }).enum)) {
      const branches = (error.schema as TUnion).anyOf ?? [];
      // A union of literals is an enumeration: name every allowed value.
      if (branches.length > 0 && branches.every((b) => 'const' in b)) {
        push(out, seen, pointer, `Expected one of: ${branches.map((b) => String(b.const)).join(', ')}`);
        continue;
      }
      const meant = intendedBranch(branches, error.value);
      if (meant) {
        const before = out.length;
        if ('discriminator' in meant) push(out, seen, `${pointer}/${escapePointer(meant.discriminator)}`, `Expected one of: ${meant.allowed.join(', ')}`);
        else explain(Value.Errors(meant, error.value), pointer, out, seen);
        if (out.length > before) continue;
      }
    }
    push(out, seen, pointer, messageFor(error.type, error.message, error.schema));
  }
}

function push(out: Violation[], seen: Set<string>, pointer: string, message: string): void {
  if (seen.has(pointer)) return;
  seen.add(pointer);
  out.push({ pointer, message });
}

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The union branch a value was meant for: `null` aside, the only branch left; for objects the
 * branch whose literal tag (e.g. `type: "inline"`) the value carries, or, when it carries a tag
 * no branch has, that tag itself; else the branch with the fewest errors.
 */
function intendedBranch(branches: TSchema[], value: unknown): TSchema | { discriminator: string; allowed: unknown[] } | null {
  const candidates = value === null ? branches : branches.filter((b) => b.type !== 'null');
  if (candidates.length === 0) return null;
  if (candidates.length === 1) return candidates[0]!;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const tags = candidates.map((b) => literalProperties(b));
    const key = Object.keys(tags[0] ?? {}).find((k) => tags.every((t) => k in t));
    if (key !== undefined) {
      const tag = (value as Record<string, unknown>)[key];
      const index = tags.findIndex((t) => t[key] === tag);
      return index === -1 ? { discriminator: key, allowed: tags.map((t) => t[key]) } : candidates[index]!;
    }
  }
  let best: TSchema | null = null;
  let fewest = Infinity;
  for (const branch of candidates) {
    let n = 0;
    for (const _ of Value.Errors(branch, value)) if (++n >= fewest) break;
    if (n < fewest) {
      fewest = n;
      best = branch;
    }
  }
  return best;
}

/** An object schema's properties that are a single literal (`const`). */
function literalProperties(schema: TSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = (schema as { properties?: Record<string, TSchema> }).properties;
  if (schema.type !== 'object' || !properties) return out;
  for (const [key, property] of Object.entries(properties)) if ('const' in property) out[key] = property.const;
  return out;
}

function messageFor(type: ValueErrorType, fallback: string, schema: TSchema): string {
  const allowed = (schema as { enum?: unknown }).enum;
  if (Array.isArray(allowed) && (type === ValueErrorType.Union || type === ValueErrorType.Literal)) {
    return `Expected one of: ${allowed.join(', ')}`;
  }
  switch (type) {
    case ValueErrorType.ObjectAdditionalProperties:
      return 'Unknown property';
    case ValueErrorType.ObjectRequiredProperty:
      return 'Required property is missing';
    default:
      return fallback;
  }
}

/** Validates and returns the typed value, or throws a 422 problem listing every violation. */
function assertValid<T>(validator: Validator<T>, value: unknown, prefix = ''): T {
  if (validator.check(value)) return value;
  throw new ProblemError(422, 'VALIDATION_FAILED', 'The request does not match the schema', {
    errors: validator.violations(value, prefix),
  });
}
