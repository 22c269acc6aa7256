// Advice on a guard schema that compiles but is slower or looser than it needs to be (the spec's
// performance guidance). Reads the raw schema, so it also runs on schemas that fail to compile.
import { pointerToken } from './json.ts';

type GuardLintCode = 'PATTERN_WITHOUT_MAX_LENGTH' | 'ADDITIONAL_PROPERTIES_ALLOWED';

export interface GuardLint {
  code: GuardLintCode;
  message: string;
  pointer: string;
}

/** Keywords whose value is one subschema, and those holding a list or a map of them. */
const ONE = ['additionalProperties', 'items', 'contains', 'propertyNames', 'not', 'if', 'then', 'else', 'unevaluatedProperties', 'unevaluatedItems'];
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

const MAX_DEPTH = 64;
const MAX_WARNINGS = 100;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Warnings, each pointing into the schema:
 * - `PATTERN_WITHOUT_MAX_LENGTH`: a `pattern` with no `maxLength` beside it. On small inputs a
 *   pattern costs little (bench/guard-prep.ts), but its time grows with the input (microseconds
 *   for a few KiB) while `maxLength` refuses a long string before the expression runs.
 * - `ADDITIONAL_PROPERTIES_ALLOWED`: an object schema with `additionalProperties` absent or
 *   `true`, so unknown fields reach the component unchecked. A schema value is a deliberate
 *   choice and is not reported.
 */
export function lintGuardSchema(schema: unknown): GuardLint[] {
  const out: GuardLint[] = [];
  walk(schema, '', 0, out);
  return out;
}

function walk(schema: unknown, at: string, depth: number, out: GuardLint[]): void {
  if (!isObject(schema) || depth > MAX_DEPTH || out.length >= MAX_WARNINGS) return;
  if (typeof schema.pattern === 'string' && typeof schema.maxLength !== 'number') {
    out.push({
      code: 'PATTERN_WITHOUT_MAX_LENGTH',
      message: 'A pattern without maxLength: matching time grows with the input, so bound the length; prefer enum, format or length rules where they say the same',
      pointer: at, // the schema to add maxLength to
    });
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const isObjectSchema = types.includes('object') || (schema.type === undefined && isObject(schema.properties));
  if (isObjectSchema && (schema.additionalProperties === undefined || schema.additionalProperties === true)) {
    out.push({
      code: 'ADDITIONAL_PROPERTIES_ALLOWED',
      message: 'An object schema without "additionalProperties": false lets unknown properties through to the component',
      pointer: at,
    });
  }
  for (const key of ONE) if (Object.hasOwn(schema, key)) walk(schema[key], `${at}/${key}`, depth + 1, out);
  for (const key of LIST) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((item, i) => walk(item, `${at}/${key}/${i}`, depth + 1, out));
  }
  for (const key of MAP) {
    const map = schema[key];
    if (isObject(map)) for (const name of Object.keys(map)) walk(map[name], `${at}/${key}/${pointerToken(name)}`, depth + 1, out);
  }
}
