// Compiles a guard: normalize the user's schema, emit and compile TypeBox, and wrap the result
// so the request path gets a check that never throws and a bounded violation report.
import { compileGuard } from './emit.ts';
import { normalizeSchema, type SchemaError } from './normalize.ts';
import { coerceQuery, planQuery, type QueryObject } from './query.ts';
import { listViolations, type GuardViolation } from './violations.ts';

export interface CompiledGuard {
  /** The fast path: true when the value satisfies the schema. Never throws. */
  check(value: unknown): boolean;
  /** Why a value fails: pointers into the value, at most MAX_VIOLATIONS; empty when it is valid. */
  violations(value: unknown): GuardViolation[];
  /**
   * For GET guards, which see the query: converts the strings of properties declared integer,
   * number or boolean (or arrays of them) when they parse cleanly, and wraps a lone value of an
   * array property. Anything else is left as sent, for validation to judge.
   */
  coerceQuery(query: QueryObject): Record<string, unknown>;
}

export type CompileGuardResult = { ok: true; guard: CompiledGuard } | { ok: false; errors: SchemaError[] };

/** Compiles a guard schema (see runtime/guard/README.md for the supported subset), or lists every problem with a pointer into the schema. */
export function compileGuardSchema(schema: unknown): CompileGuardResult {
  const normalized = normalizeSchema(schema);
  if (!normalized.ok) return normalized;
  const { root } = normalized.schema;
  let test: (value: unknown) => boolean;
  try {
    test = compileGuard(normalized.schema);
  } catch (error) {
    // A normalized schema always compiles; reaching this is our bug, reported rather than thrown into a save.
    return { ok: false, errors: [{ pointer: '', message: `The schema could not be compiled: ${error instanceof Error ? error.message : String(error)}` }] };
  }
  const plan = planQuery(root);
  const check = (value: unknown): boolean => {
    try {
      return test(value);
    } catch {
      // Only a value nested deeper than the stack (through a recursive $ref) gets here: refuse it.
      return false;
    }
  };
  return {
    ok: true,
    guard: {
      check,
      violations(value) {
        if (check(value)) return [];
        let found: GuardViolation[];
        try {
          found = listViolations(root, value);
        } catch {
          found = [{ pointer: '', message: 'The value is nested too deeply to validate' }];
        }
        return found.length > 0 ? found : [{ pointer: '', message: 'The value does not match the schema' }];
      },
      coerceQuery: (query) => coerceQuery(plan, query),
    },
  };
}
