// Generates the OpenAPI 3.1 document of the active Endpoints, served by
// GET /api/v1/endpoints/openapi and GET /api/v1/endpoints/{endpointId}/openapi (DESIGN §8).
import type { EndpointRecord } from '../core/definitions/index.ts';
import {
  buildOperation,
  operationIds,
  paramNames,
  shapeOf,
  splitPath,
  templateOf,
  type PathSegment,
  responseComponents,
  LEGACY_RESULTS_SCHEMA,
  PROBLEM_SCHEMA,
  SchemaComponents,
  type JsonObject,
} from './openapi/index.ts';

export interface OpenApiEndpoint {
  record: EndpointRecord;
  /** The success body's schema when known (a node component's declared result schema). */
  outputSchema?: unknown;
  /** For a component guard: the json-validator component's schema, when resolved. */
  guardSchema?: unknown;
}

export interface EndpointsOpenApiOptions {
  /** The runtime origin (instance configuration): the document's only server. */
  runtimeUrl: string;
  title?: string;
  /** `info.version`; defaults to 1.0.0. */
  version?: string;
  endpoints: OpenApiEndpoint[];
}

const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The document for the given Endpoints; disabled ones are left out. Output is deterministic for a
 * given set of definitions: paths, operations and components come in a stable order.
 */
export function buildEndpointsOpenApi(options: EndpointsOpenApiOptions): Record<string, unknown> {
  const active = options.endpoints
    .filter((e) => e.record.status === 'active')
    .map((e) => ({ ...e, segments: splitPath(e.record.path) }))
    .sort((a, b) => compare(a.record.path, b.record.path) || METHOD_ORDER.indexOf(a.record.method) - METHOD_ORDER.indexOf(b.record.method) || compare(a.record.id, b.record.id));

  const ids = operationIds(active.map((e) => ({ method: e.record.method, path: e.record.path, segments: e.segments })));
  const components = new SchemaComponents();
  // One path item per shape, keyed with the names of the first definition of that shape.
  const items = new Map<string, { key: string; names: string[]; item: JsonObject }>();
  const tags = new Set<string>();

  active.forEach((endpoint, i) => {
    const shape = shapeOf(endpoint.segments);
    const ownNames = paramNames(endpoint.segments);
    let entry = items.get(shape);
    if (!entry) {
      entry = { key: templateOf(endpoint.segments, ownNames), names: ownNames, item: {} };
      items.set(shape, entry);
    }
    const method = endpoint.record.method.toLowerCase();
    // Two active definitions never share method and shape (ROUTE_CONFLICT); the first one wins if they do.
    if (Object.hasOwn(entry.item, method)) return;
    const tag = tagOf(endpoint.segments);
    tags.add(tag);
    entry.item[method] = buildOperation(endpoint, { operationId: ids[i]!, tag, templateNames: entry.names, ownNames, components });
  });

  const { responses, headers } = responseComponents();
  return {
    openapi: '3.1.0',
    info: { title: options.title ?? 'Endpoints', version: options.version ?? '1.0.0', description: 'Endpoints served by the runtime. Every call needs a bearer credential: a JWT or an API key (sk-…).' },
    servers: [{ url: options.runtimeUrl }],
    security: [{ bearerAuth: [] }],
    tags: [...tags].sort(compare).map((name) => ({ name })),
    paths: Object.fromEntries([...items.values()].map((e) => [e.key, inMethodOrder(e.item)])),
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A JWT or an API key starting with sk-' } },
      schemas: { Problem: PROBLEM_SCHEMA, LegacyResults: LEGACY_RESULTS_SCHEMA, ...sorted(components.schemas) },
      responses,
      headers,
    },
  };
}

/** The first static segment names the group an operation is listed under. */
function tagOf(segments: PathSegment[]): string {
  const first = segments[0];
  if (first?.kind !== 'static') return 'endpoints';
  try {
    return decodeURIComponent(first.text);
  } catch {
    return first.text;
  }
}

const inMethodOrder = (item: JsonObject): JsonObject =>
  Object.fromEntries(METHOD_ORDER.map((m) => m.toLowerCase()).filter((m) => Object.hasOwn(item, m)).map((m) => [m, item[m]]));

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function sorted(schemas: JsonObject): JsonObject {
  return Object.fromEntries(Object.keys(schemas).sort(compare).map((k) => [k, schemas[k]]));
}
