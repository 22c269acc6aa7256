// Whether a JSON Schema compiles as a guard (json-validator content, node result schemas): the
// runtime's own compiler decides, so whatever saves here is what the runtime can enforce.
import { compileGuardSchema } from '../../runtime/guard/index.ts';
import type { Violation } from '../core/http/index.ts';

/** Problems of a schema, pointers relative to the schema's root. Empty when it compiles. */
export function schemaErrors(schema: unknown): Violation[] {
  const result = compileGuardSchema(schema);
  return result.ok ? [] : result.errors.map((e) => ({ pointer: e.pointer, message: e.message }));
}
