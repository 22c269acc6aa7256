// The OpenAPI document with every named schema written once: a schema with a `title` (AgentConfig,
// AgentPluginApprovalConfig, a request body's AgentUpdateBody, …) moves to components.schemas under
// its title and each place it stood refers to it by `$ref`, as a client generator wants (one type
// per name, not one per place). A title that two different schemas carry is a mistake in the
// schemas: the first keeps the name, the others stay inline (test/http/openapi-contract.test.ts
// finds any titled schema left inline).

type Json = Record<string, unknown>;
interface Document extends Json {
  paths?: Record<string, unknown>;
  components?: Json & { schemas?: Record<string, unknown> };
}

/** Keywords whose values are data, not schemas: an example problem has a `title` and a `type` too. */
const DATA_KEYWORDS = new Set(['example', 'examples', 'default', 'const', 'enum']);
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNamedSchema = (value: Json) =>
  typeof value.title === 'string' && ('type' in value || 'anyOf' in value || 'oneOf' in value || 'allOf' in value || '$ref' in value);

export function withNamedSchemas(document: object): Document {
  const source = document as Document;
  const named = new Map<string, { schema: unknown; text: string }>();
  const schemas: Record<string, unknown> = {};

  /** `value` with every named schema below it (and itself, unless it is `root`) by $ref. */
  const hoist = (value: unknown, root = false): unknown => {
    if (Array.isArray(value)) return value.map((item) => hoist(item));
    if (!isObject(value)) return value;
    const copy: Json = {};
    for (const [key, item] of Object.entries(value)) copy[key] = DATA_KEYWORDS.has(key) ? item : hoist(item);
    if (root || !isNamedSchema(value)) return copy;
    const name = value.title as string;
    const text = JSON.stringify(copy);
    const known = named.get(name);
    if (known === undefined) {
      named.set(name, { schema: copy, text });
      schemas[name] = copy;
    } else if (known.text !== text) {
      return copy;
    }
    return { $ref: `#/components/schemas/${encodeURIComponent(name)}` };
  };

  const components = { ...(source.components ?? {}) };
  for (const [name, schema] of Object.entries(components.schemas ?? {})) {
    const copy = hoist(schema, true);
    named.set(name, { schema: copy, text: JSON.stringify(copy) });
    schemas[name] = copy;
  }
  const paths = hoist(source.paths ?? {}) as Record<string, unknown>;
  return { ...source, paths, components: { ...components, schemas } };
}
