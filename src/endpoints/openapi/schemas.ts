// JSON Schemas placed into a generated OpenAPI 3.1 document. A guard's own `$defs` and `$ref`s
// ("#", "#/$defs/x") would resolve against the document's root once embedded, so definitions move
// to `components.schemas` and references are rewritten to point there.

export type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Subschema-valued keywords (the rest hold data, such as `enum`, `const`, `default`: never rewritten). */
const ONE = ['additionalProperties', 'items', 'contains', 'propertyNames', 'not', 'if', 'then', 'else', 'unevaluatedProperties', 'unevaluatedItems'];
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', 'patternProperties', 'dependentSchemas'];

/** Component names must match `^[a-zA-Z0-9._-]+$`. */
const componentName = (text: string): string => text.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '') || 'Schema';

/** A property map built without assignment, so a `__proto__` key stays an ordinary key. */
const entries = (pairs: [string, unknown][]): JsonObject => Object.fromEntries(pairs);

/** Collects the `components.schemas` of one document and hands out unique names. */
export class SchemaComponents {
  readonly schemas: JsonObject = {};

  /** Registers `schema` under a name derived from `wanted`, made unique; returns a `$ref` to it. */
  add(wanted: string, schema: unknown): JsonObject {
    const base = componentName(wanted);
    let name = base;
    for (let n = 2; Object.hasOwn(this.schemas, name); n++) name = `${base}_${n}`;
    Object.defineProperty(this.schemas, name, { value: schema, enumerable: true, writable: true, configurable: true });
    return { $ref: `#/components/schemas/${name}` };
  }

  /** Reserves a name before its schema exists (a recursive root refers to itself). */
  reserve(wanted: string): { ref: JsonObject; set(schema: unknown): void } {
    const ref = this.add(wanted, {});
    const name = String(ref.$ref).slice('#/components/schemas/'.length);
    return { ref, set: (schema) => Object.defineProperty(this.schemas, name, { value: schema }) };
  }

  /**
   * Embeds a user's JSON Schema: a JSON copy (data only), `$schema` and `$id` dropped at the root
   * (an `$id` would rebase the rewritten references), definitions moved to components named after
   * `prefix`, references rewritten. Anything that is not a schema becomes `{}` (any value).
   */
  embed(prefix: string, schema: unknown): unknown {
    let copy: unknown;
    try {
      copy = JSON.parse(JSON.stringify(schema) ?? 'true');
    } catch {
      return {};
    }
    if (typeof copy === 'boolean') return copy;
    if (!isObject(copy)) return {};
    const defs = new Map<string, JsonObject>();
    const usesRoot = { value: false };
    const names: [string, string][] = [];
    for (const keyword of ['$defs', 'definitions']) {
      const table = copy[keyword];
      if (isObject(table)) for (const name of Object.keys(table)) names.push([`#/${keyword}/${pointerToken(name)}`, name]);
    }
    // Names first, so references between definitions can be rewritten while copying them.
    for (const [ref, name] of names) defs.set(ref, this.reserve(`${prefix}_${name}`).ref);
    const root = this.reserve(prefix);
    const rewrite = (node: unknown): unknown => rewriteRefs(node, defs, root.ref, usesRoot);
    for (const [ref, name] of names) {
      const keyword = ref.startsWith('#/$defs/') ? '$defs' : 'definitions';
      const target = String(defs.get(ref)!.$ref).slice('#/components/schemas/'.length);
      Object.defineProperty(this.schemas, target, { value: rewrite((copy[keyword] as JsonObject)[name]) });
    }
    const body = entries(Object.entries(copy).filter(([k]) => !['$defs', 'definitions', '$schema', '$id'].includes(k)));
    const rewritten = rewrite(body);
    if (usesRoot.value) {
      root.set(rewritten);
      return root.ref;
    }
    delete this.schemas[String(root.ref.$ref).slice('#/components/schemas/'.length)];
    return rewritten;
  }
}

function rewriteRefs(node: unknown, defs: Map<string, JsonObject>, rootRef: JsonObject, usesRoot: { value: boolean }): unknown {
  if (!isObject(node)) return node;
  const visit = (child: unknown) => rewriteRefs(child, defs, rootRef, usesRoot);
  const out: [string, unknown][] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') {
      out.push([key, resolve(value, defs, rootRef, usesRoot)]);
    } else if (ONE.includes(key)) {
      out.push([key, visit(value)]);
    } else if (LIST.includes(key) && Array.isArray(value)) {
      out.push([key, value.map(visit)]);
    } else if (MAP.includes(key) && isObject(value)) {
      out.push([key, entries(Object.entries(value).map(([k, v]) => [k, visit(v)]))]);
    } else {
      out.push([key, value]);
    }
  }
  return entries(out);
}

function resolve(ref: string, defs: Map<string, JsonObject>, rootRef: JsonObject, usesRoot: { value: boolean }): string {
  let key = ref;
  try {
    key = '#' + decodeURIComponent(ref.slice(1));
  } catch {
    // Left as written: a guard that compiled never holds such a reference.
  }
  if (key === '#') {
    usesRoot.value = true;
    return String(rootRef.$ref);
  }
  return String(defs.get(key)?.$ref ?? ref);
}

const pointerToken = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** RFC 9457 problem details, as both origins answer errors (DESIGN §3). */
export const PROBLEM_SCHEMA: JsonObject = {
  type: 'object',
  description: 'RFC 9457 problem details',
  required: ['type', 'title', 'status', 'code'],
  properties: {
    type: { type: 'string', example: 'about:blank' },
    title: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string', description: 'Stable machine-readable code', example: 'NOT_FOUND' },
    detail: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', required: ['pointer', 'message'], properties: { pointer: { type: 'string', description: 'JSON pointer into the request' }, message: { type: 'string' } } },
    },
    oid: { type: 'string', description: 'The distributed operation identifier, as in the x-svc-oid header' },
  },
};

/** The `legacyResults` envelope (spec: Runtime invocation). */
export const LEGACY_RESULTS_SCHEMA: JsonObject = {
  type: 'object',
  description: 'Legacy results envelope, kept for existing integrations',
  required: ['success', 'results', 'executionId'],
  properties: {
    success: { type: 'boolean' },
    results: {
      type: 'array',
      items: { type: 'object', required: ['name', 'value'], properties: { name: { type: 'string' }, value: { description: 'The result value (any JSON)' } } },
    },
    executionId: { type: 'string' },
  },
};
