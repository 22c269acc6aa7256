// Endpoint guards: user JSON Schema compiled once per index build with TypeBox's compiler, with
// a violation report for failures, lint advice for the control plane, and query coercion for GET.
export { compileGuardSchema, type CompiledGuard } from './compile.ts';
export { GuardCache } from './cache.ts';
export { lintGuardSchema } from './lint.ts';
export { queryToObject, type QueryObject } from './query.ts';
export { GUARD_LIMITS, type SchemaError } from './normalize.ts';
export { GUARD_FORMATS } from './formats.ts';
export { MAX_PATTERN_LENGTH, MAX_RE2_PROGRAM } from './pattern.ts';
export { MAX_VIOLATIONS } from './violations.ts';
