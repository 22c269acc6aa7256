// TypeBox building blocks the request-body schemas share: closed string sets that read as plain
// enums in OpenAPI, objects that refuse unknown properties, name-keyed records, ids and lists.
import { Type, type SchemaOptions, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';

/**
 * A closed set of strings. TypeBox checks it as a union of literals; the extra `type`/`enum`
 * keywords are ignored by the checker but make the OpenAPI document show a plain string enum.
 */
export function StringEnum<const V extends readonly [string, ...string[]]>(
  values: V,
  options: SchemaOptions = {},
): TUnion<TLiteral<V[number]>[]> {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    { ...options, type: 'string', enum: [...values] },
  );
}

/** An object that refuses unknown properties, as DESIGN §4 requires at every level. */
export const Strict = <P extends Record<string, TSchema>>(properties: P, options: SchemaOptions = {}) =>
  Type.Object(properties, { ...options, additionalProperties: false });

/**
 * An object keyed by names (tool names, capability names) whose values are all `value`.
 * TypeBox matches record keys with `^(.*)$`, which misses keys containing a line break;
 * repeating the value schema as `additionalProperties` closes that gap (and reads well in OpenAPI).
 */
export const NamedRecord = <V extends TSchema>(value: V, options: SchemaOptions = {}) =>
  Type.Record(Type.String(), value, { ...options, additionalProperties: value });

/** Free-form JSON object (caller-owned data such as static inputs or an output schema). */
export const JsonObject = (options: SchemaOptions = {}) => Type.Record(Type.String(), Type.Unknown(), options);

export const Uuid = (options: SchemaOptions = {}) => Type.String({ ...options, format: 'uuid' });
export const NonEmpty = (options: SchemaOptions = {}) => Type.String({ ...options, minLength: 1 });
export const UuidList = (description: string) => Type.Array(Uuid(), { description });
export const StringList = (description: string) => Type.Array(Type.String(), { description });
