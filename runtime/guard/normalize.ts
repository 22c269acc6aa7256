// Reads a user's JSON Schema (the documented draft 2020-12 subset) into guard nodes, or lists
// every problem with a JSON pointer into the schema. Work is bounded by GUARD_LIMITS.
import { isGuardFormat, GUARD_FORMATS } from './formats.ts';
import { JSON_TYPES, type ArrayRules, type GuardNode, type JsonType, type ObjectRules, type Pattern, type RefRule } from './ir.ts';
import { pointerToken } from './json.ts';
import { ANNOTATIONS, DIALECTS, UNSUPPORTED } from './keywords.ts';
import { compilePattern } from './pattern.ts';
import { resolveRefs } from './refs.ts';

export const GUARD_LIMITS = {
  /** Subschemas nested deeper than this are refused. */
  maxDepth: 32,
  /** Subschemas in one guard, `$defs` included. */
  maxSubschemas: 1000,
  /** The schema's JSON text. */
  maxSchemaBytes: 64 * 1024,
  maxEnumValues: 1000,
  /** Errors reported for one schema; later ones are dropped. */
  maxErrors: 50,
  /**
   * RE2 instructions (estimated) of all the distinct patterns RE2 runs in one guard: each stays
   * compiled while the Endpoint is active (~0.35 KB an instruction in re2js).
   */
  maxRe2Program: 10_000,
} as const;

export interface SchemaError {
  pointer: string;
  message: string;
}

export interface NormalizedSchema {
  root: GuardNode;
  /** Definitions by the `$ref` that names them (`#`, `#/$defs/<name>`). */
  defs: Map<string, GuardNode>;
}

export type NormalizeResult = { ok: true; schema: NormalizedSchema } | { ok: false; errors: SchemaError[] };

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export function normalizeSchema(raw: unknown): NormalizeResult {
  let text: string | undefined;
  try {
    text = JSON.stringify(raw);
  } catch {
    return { ok: false, errors: [{ pointer: '', message: 'The schema is not JSON (it is cyclic or too deeply nested)' }] };
  }
  if (text === undefined) return { ok: false, errors: [{ pointer: '', message: 'A schema is required' }] };
  if (text.length > GUARD_LIMITS.maxSchemaBytes) {
    return { ok: false, errors: [{ pointer: '', message: `The schema is larger than ${GUARD_LIMITS.maxSchemaBytes} bytes of JSON` }] };
  }
  const reader = new Reader();
  const defs = new Map<string, GuardNode>();
  if (isObject(raw)) {
    for (const keyword of ['$defs', 'definitions'] as const) {
      const table = raw[keyword];
      if (table === undefined) continue;
      if (!isObject(table)) {
        reader.error(`/${keyword}`, `${keyword} is an object of schemas`);
        continue;
      }
      for (const name of Object.keys(table)) {
        const at = `/${keyword}/${pointerToken(name)}`;
        defs.set('#' + at, reader.node(table[name], at, 1));
      }
    }
  }
  const root = reader.node(raw, '', 0);
  if (reader.refs.some((r) => r.rule.ref === '#')) defs.set('#', root);
  for (const error of resolveRefs(reader.refs, defs)) reader.error(error.pointer, error.message);
  return reader.errors.length > 0 ? { ok: false, errors: reader.errors } : { ok: true, schema: { root, defs } };
}

class Reader {
  readonly errors: SchemaError[] = [];
  readonly refs: { rule: RefRule; at: string }[] = [];
  private subschemas = 0;
  /** Distinct patterns RE2 runs, and their program sizes in all. */
  private readonly re2Sources = new Set<string>();
  private re2Size = 0;

  /** The compiled pattern, or null after reporting why it cannot be used (alone, or within the guard's RE2 budget). */
  pattern(source: string, at: string): Pattern | null {
    const compiled = compilePattern(source);
    if (!compiled.ok) {
      this.error(at, compiled.message);
      return null;
    }
    if (compiled.re2Size > 0 && !this.re2Sources.has(source)) {
      this.re2Sources.add(source);
      this.re2Size += compiled.re2Size;
      if (this.re2Size > GUARD_LIMITS.maxRe2Program) {
        this.error(at, `The patterns matched by RE2 (those repeating without bound) are too large together: about ${this.re2Size} instructions, at most ${GUARD_LIMITS.maxRe2Program} in one guard`);
        return null;
      }
    }
    return compiled.pattern;
  }

  error(pointer: string, message: string): void {
    if (this.errors.length < GUARD_LIMITS.maxErrors) this.errors.push({ pointer, message });
  }

  node(raw: unknown, at: string, depth: number): GuardNode {
    const node: GuardNode = { at };
    if (depth > GUARD_LIMITS.maxDepth) {
      this.error(at, `Schemas may nest at most ${GUARD_LIMITS.maxDepth} levels deep`);
      return node;
    }
    if (++this.subschemas === GUARD_LIMITS.maxSubschemas + 1) {
      this.error(at, `A guard may hold at most ${GUARD_LIMITS.maxSubschemas} subschemas`);
    }
    if (this.subschemas > GUARD_LIMITS.maxSubschemas) return node;
    if (raw === true) return node;
    if (raw === false) return { at, reject: true };
    if (!isObject(raw)) {
      this.error(at, 'A schema is an object or a boolean');
      return node;
    }
    for (const key of Object.keys(raw)) this.keyword(node, key, raw[key], depth);
    return node;
  }

  private nodes(raw: unknown, at: string, depth: number, keyword: string): GuardNode[] {
    if (!Array.isArray(raw) || raw.length === 0) {
      this.error(at, `${keyword} is a non-empty array of schemas`);
      return [];
    }
    return raw.map((item, i) => this.node(item, `${at}/${i}`, depth + 1));
  }

  private count(value: unknown, at: string, keyword: string): number | undefined {
    if (isCount(value)) return value;
    this.error(at, `${keyword} is a non-negative integer`);
    return undefined;
  }

  private finite(value: unknown, at: string, keyword: string): number | undefined {
    if (isFiniteNumber(value)) return value;
    this.error(at, `${keyword} is a number`);
    return undefined;
  }

  private keyword(node: GuardNode, key: string, value: unknown, depth: number): void {
    const at = `${node.at}/${pointerToken(key)}`;
    const sub = (raw: unknown) => this.node(raw, at, depth + 1);
    if (ANNOTATIONS.has(key) || key.startsWith('x-')) return;
    if (Object.hasOwn(UNSUPPORTED, key)) return this.error(at, UNSUPPORTED[key]!);
    switch (key) {
      case '$schema':
        if (depth !== 0) return this.error(at, '$schema is allowed only at the root');
        if (typeof value !== 'string' || !DIALECTS.has(value)) return this.error(at, 'Guards use JSON Schema draft 2020-12 ("https://json-schema.org/draft/2020-12/schema")');
        return;
      case '$id':
        if (depth !== 0 || typeof value !== 'string') return this.error(at, '$id is allowed only at the root, as a string; references resolve within this schema');
        return;
      case '$defs':
      case 'definitions':
        // Read by normalizeSchema before the root; nested definitions could only be reached by pointers we do not resolve.
        if (depth !== 0) this.error(at, `${key} is allowed only at the root`);
        return;
      case '$ref':
        if (typeof value !== 'string') return this.error(at, '$ref is a string');
        node.ref = { ref: value };
        this.refs.push({ rule: node.ref, at });
        return;
      case 'type':
        return this.type(node, value, at);
      case 'minLength':
      case 'maxLength': {
        const n = this.count(value, at, key);
        if (n !== undefined) (node.string ??= {})[key] = n;
        return;
      }
      case 'pattern': {
        if (typeof value !== 'string') return this.error(at, 'pattern is a string');
        const pattern = this.pattern(value, at);
        if (pattern) (node.string ??= {}).pattern = pattern;
        return;
      }
      case 'format':
        if (typeof value !== 'string' || !isGuardFormat(value)) return this.error(at, `Unknown format; supported: ${GUARD_FORMATS.join(', ')}`);
        (node.string ??= {}).format = value;
        return;
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum': {
        const n = this.finite(value, at, key);
        if (n !== undefined) (node.number ??= {})[key] = n;
        return;
      }
      case 'multipleOf':
        if (!isFiniteNumber(value) || value <= 0) return this.error(at, 'multipleOf is a number greater than 0');
        (node.number ??= {}).multipleOf = value;
        return;
      case 'properties':
        if (!isObject(value)) return this.error(at, 'properties is an object of schemas');
        for (const name of Object.keys(value)) objectRules(node).properties.set(name, this.node(value[name], `${at}/${pointerToken(name)}`, depth + 1));
        return;
      case 'required':
        if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return this.error(at, 'required is an array of property names');
        if (new Set(value).size !== value.length) return this.error(at, 'required lists a property twice');
        objectRules(node).required = value as string[];
        return;
      case 'patternProperties':
        if (!isObject(value)) return this.error(at, 'patternProperties is an object of schemas keyed by pattern');
        for (const source of Object.keys(value)) {
          const where = `${at}/${pointerToken(source)}`;
          const pattern = this.pattern(source, where);
          const child = this.node(value[source], where, depth + 1);
          if (pattern) objectRules(node).patternProperties.push({ pattern, node: child });
        }
        return;
      case 'additionalProperties':
        objectRules(node).additionalProperties = sub(value);
        return;
      case 'propertyNames':
        objectRules(node).propertyNames = sub(value);
        return;
      case 'minProperties':
      case 'maxProperties': {
        const n = this.count(value, at, key);
        if (n !== undefined) objectRules(node)[key] = n;
        return;
      }
      case 'items':
        if (Array.isArray(value)) return this.error(at, 'items as an array is draft 7; use prefixItems (draft 2020-12)');
        arrayRules(node).items = sub(value);
        return;
      case 'prefixItems':
        arrayRules(node).prefixItems = this.nodes(value, at, depth, key);
        return;
      case 'contains':
        arrayRules(node).contains = sub(value);
        return;
      case 'minContains':
      case 'maxContains':
      case 'minItems':
      case 'maxItems': {
        const n = this.count(value, at, key);
        if (n !== undefined) arrayRules(node)[key] = n;
        return;
      }
      case 'uniqueItems':
        if (typeof value !== 'boolean') return this.error(at, 'uniqueItems is a boolean');
        if (value) arrayRules(node).uniqueItems = true;
        return;
      case 'enum':
        if (!Array.isArray(value) || value.length === 0) return this.error(at, 'enum is a non-empty array');
        if (value.length > GUARD_LIMITS.maxEnumValues) return this.error(at, `enum may list at most ${GUARD_LIMITS.maxEnumValues} values`);
        node.enum = value;
        return;
      case 'const':
        node.const = { value };
        return;
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        node[key] = this.nodes(value, at, depth, key);
        return;
      case 'not':
        node.not = sub(value);
        return;
      default:
        return this.error(at, `Unknown keyword "${key}" (vendor extensions start with "x-")`);
    }
  }

  private type(node: GuardNode, value: unknown, at: string): void {
    const list = typeof value === 'string' ? [value] : value;
    const valid = Array.isArray(list) && list.length > 0 && list.every((t) => (JSON_TYPES as readonly unknown[]).includes(t));
    if (!valid) return this.error(at, `type is one of ${JSON_TYPES.join(', ')}, or a non-empty array of them`);
    if (new Set(list).size !== list.length) return this.error(at, 'type lists a type twice');
    node.types = list as JsonType[];
  }
}

function objectRules(node: GuardNode): ObjectRules {
  return (node.object ??= { properties: new Map(), required: [], patternProperties: [] });
}

function arrayRules(node: GuardNode): ArrayRules {
  return (node.array ??= { prefixItems: [] });
}
