// The one custom TypeBox kind a guard uses where TypeBox's own kinds fall short of JSON Schema
// (prototype-named properties, patternProperties, prefixItems, oneOf, deep enum, code-point
// lengths, uniqueness). The compiled check calls back into a closure built for that node.
import { Kind, TypeRegistry, type TSchema } from '@sinclair/typebox';

const GUARD_KIND = 'JsonSchemaGuard';

const CHECK = Symbol('guard.check');

export type Check = (value: unknown) => boolean;

/** A TypeBox schema node whose check is a closure; `label` only helps reading generated code. */
export interface CustomSchema extends TSchema {
  [CHECK]: Check;
  readonly label: string;
}

// TypeRegistry is process-wide; the kind is generic (the closure lives on each schema), so one
// registration serves every guard.
if (!TypeRegistry.Has(GUARD_KIND)) {
  TypeRegistry.Set(GUARD_KIND, (schema, value) => (schema as CustomSchema)[CHECK](value));
}

/** A node checked by `check`, which may be set later (children are compiled after emission). */
export function customSchema(label: string, check: Check = () => false): CustomSchema {
  return { [Kind]: GUARD_KIND, [CHECK]: check, label } as CustomSchema;
}

export function setCheck(schema: CustomSchema, check: Check): void {
  schema[CHECK] = check;
}
