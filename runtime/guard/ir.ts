// The normalized form of a guard schema: what normalize.ts accepts and what emit.ts (TypeBox) and
// violations.ts (error reports) both read, so the fast check and the report cannot drift apart.

export type JsonType = 'null' | 'boolean' | 'object' | 'array' | 'number' | 'integer' | 'string';

export const JSON_TYPES: readonly JsonType[] = ['null', 'boolean', 'object', 'array', 'number', 'integer', 'string'];

/** A `pattern` or `patternProperties` key, already vetted by pattern.ts. */
export interface Pattern {
  readonly source: string;
  /** Searches a string (JSON Schema patterns are not anchored): JavaScript's engine or RE2's (linear). */
  readonly regex: { test(value: string): boolean };
  /** `regex` is JavaScript's own RegExp (with the `u` flag): its matching cost is bounded by the pattern alone. */
  readonly native: boolean;
}

export interface StringRules {
  minLength?: number;
  maxLength?: number;
  pattern?: Pattern;
  format?: string;
}

export interface NumberRules {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
}

export interface ObjectRules {
  /** A Map, never a plain object, so `__proto__` and friends stay ordinary keys. */
  properties: Map<string, GuardNode>;
  required: string[];
  patternProperties: { pattern: Pattern; node: GuardNode }[];
  /** Applies to keys matched by neither `properties` nor `patternProperties`; absent = anything. */
  additionalProperties?: GuardNode;
  propertyNames?: GuardNode;
  minProperties?: number;
  maxProperties?: number;
}

export interface ArrayRules {
  prefixItems: GuardNode[];
  /** Applies to items after `prefixItems`; absent = anything. */
  items?: GuardNode;
  contains?: GuardNode;
  minContains?: number;
  maxContains?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
}

/** A `$ref` to `#` or `#/$defs/<name>`; `target` is filled once every definition is normalized. */
export interface RefRule {
  readonly ref: string;
  target?: GuardNode;
}

/**
 * One subschema. Every present member is a constraint and all of them must hold (JSON Schema's
 * conjunction); type-specific rules apply only to values of that type.
 */
export interface GuardNode {
  /** Where this subschema sits in the user's schema (a JSON pointer), for messages and lint. */
  readonly at: string;
  /** The `false` schema: nothing is valid. */
  reject?: true;
  /** Allowed types; absent = any type. `integer` is kept apart from `number`. */
  types?: JsonType[];
  string?: StringRules;
  number?: NumberRules;
  object?: ObjectRules;
  array?: ArrayRules;
  enum?: unknown[];
  const?: { value: unknown };
  allOf?: GuardNode[];
  anyOf?: GuardNode[];
  oneOf?: GuardNode[];
  not?: GuardNode;
  ref?: RefRule;
}
