// Compiled TypeBox validators that report every violation as a JSON pointer (DESIGN §3).
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { FormatRegistry } from '@sinclair/typebox';
import { ProblemError, type Violation } from './problem.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i;

// TypeBox ships no formats; register the ones the schemas use, once.
if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (v) => UUID.test(v));
if (!FormatRegistry.Has('uri')) {
  FormatRegistry.Set('uri', (v) => {
    if (v.length > 2048 || !/^[a-z][a-z0-9+.-]*:/i.test(v)) return false;
    return URL.canParse(v);
  });
}
if (!FormatRegistry.Has('date-time')) {
  FormatRegistry.Set('date-time', (v) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)));
}
// `markdown` only documents intent: any string is markdown.
if (!FormatRegistry.Has('markdown')) FormatRegistry.Set('markdown', () => true);

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
    check: (value): value is Static<S> => compiled.Check(value),
    violations(value, prefix = '') {
      const out: Violation[] = [];
      const seen = new Set<string>();
      for (const error of compiled.Errors(value)) {
        // A missing required property is also reported as "expected <type>" at the same
        // pointer; keep the first (most telling) message per pointer.
        const pointer = prefix + error.path;
        if (seen.has(pointer)) continue;
        seen.add(pointer);
        out.push({ pointer, message: messageFor(error.type, error.message, error.schema) });
        if (out.length >= 100) break;
      }
      return out;
    },
  };
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
export function assertValid<T>(validator: Validator<T>, value: unknown, prefix = ''): T {
  if (validator.check(value)) return value;
  throw new ProblemError(422, 'VALIDATION_FAILED', 'The request does not match the schema', {
    errors: validator.violations(value, prefix),
  });
}
