// The generated OpenAPI 3.1 document of the active Endpoints: validated by a real OpenAPI
// validator (swagger-parser) for one and for 200 endpoints of every method and response mode,
// plus the structure users rely on: servers, paths, parameters, bodies, statuses, components.
import { describe, expect, test } from 'bun:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020';
import { buildEndpointsOpenApi, type OpenApiEndpoint } from '../../src/endpoints/openapi.ts';
import type { EndpointRecord, HttpMethod } from '../../src/core/definitions/schema.ts';

// The generated document is read as loosely typed JSON: this test is its wire boundary.
type Json = Record<string, any>;
const operationsOf = (doc: Json): Json[] => Object.values(doc.paths as Json).flatMap((item: Json) => Object.values(item) as Json[]);

let counter = 0;
function endpoint(method: HttpMethod, path: string, fields: Partial<EndpointRecord> = {}): EndpointRecord {
  counter++;
  return {
    id: `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
    workspaceId: '00000000-0000-4000-8000-000000000000',
    name: `${method} ${path}`,
    description: null,
    method,
    path,
    status: 'active',
    componentId: '11111111-1111-4111-8111-111111111111',
    contractStatus: null,
    version: 0,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    successStatus: 200,
    timeoutMs: 10000,
    ...fields,
  };
}

const RUNTIME = 'http://runtime.example:8081';
const build = (endpoints: OpenApiEndpoint[]) => buildEndpointsOpenApi({ runtimeUrl: RUNTIME, endpoints }) as Json;

/** swagger-parser validates against the OpenAPI 3.1 schema and resolves every $ref (it mutates: give it a copy). */
async function validate(doc: Json): Promise<Json> {
  return (await SwaggerParser.validate(structuredClone(doc) as never)) as Json;
}

/** What swagger-parser does not check for 3.x documents: ids, path templates, shapes, schemas. */
function checkStructure(doc: Json): void {
  const ids = new Set<string>();
  const shapes = new Set<string>();
  for (const [key, item] of Object.entries(doc.paths as Json)) {
    const shape = key.replace(/\{[^}]+\}/g, '{}');
    expect(shapes.has(shape)).toBe(false);
    shapes.add(shape);
    const names = [...key.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const operation of Object.values(item as Json) as Json[]) {
      expect(ids.has(operation.operationId)).toBe(false);
      ids.add(operation.operationId);
      expect(operation.operationId).toMatch(/^[A-Za-z0-9_]+$/);
      const declared = (operation.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
      expect(declared).toEqual(names);
    }
  }
}

const orderGuard = {
  type: 'object',
  properties: { sku: { type: 'string', maxLength: 20 }, qty: { type: 'integer', minimum: 1 } },
  required: ['sku'],
  additionalProperties: false,
};

describe('one endpoint', () => {
  const record = endpoint('POST', '/orders/:orderId/items', {
    name: 'Add an item',
    description: 'Adds an item to an order',
    guard: { type: 'inline', schema: orderGuard },
    validationFailure: { status: 422, body: { error: 'invalid item' } },
    successStatus: 201,
    popResult: 'item',
  });
  const doc = build([{ record, outputSchema: { type: 'object', properties: { id: { type: 'string' } } } }]);
  const operation = doc.paths['/orders/{orderId}/items'].post;

  test('passes the OpenAPI validator', async () => {
    await validate(doc);
    checkStructure(doc);
  });

  test('document header: 3.1, servers = runtime origin, bearer security everywhere', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: RUNTIME }]);
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  test('path in {param} form, with its parameter', () => {
    expect(Object.keys(doc.paths)).toEqual(['/orders/{orderId}/items']);
    expect(operation.parameters).toEqual([{ name: 'orderId', in: 'path', required: true, schema: { type: 'string' } }]);
  });

  test('operation id, summary, description, tags', () => {
    expect(operation.operationId).toBe('postOrdersByOrderIdItems');
    expect(operation.summary).toBe('Add an item');
    expect(operation.description).toBe('Adds an item to an order');
    expect(operation.tags).toEqual(['orders']);
    expect(doc.tags).toEqual([{ name: 'orders' }]);
    expect(operation['x-endpoint-id']).toBe(record.id);
  });

  test('the guard is the JSON request body', () => {
    expect(operation.requestBody).toEqual({ required: true, content: { 'application/json': { schema: orderGuard } } });
  });

  test('success status and schema, validation failure, problem responses', () => {
    const statuses = Object.keys(operation.responses);
    expect(statuses).toEqual(['201', '401', '403', '404', '413', '414', '415', '422', '500', '502', '503', '504', 'default']);
    expect(operation.responses['201'].content['application/json'].schema).toEqual({ type: 'object', properties: { id: { type: 'string' } } });
    expect(operation.responses['201'].headers).toEqual({ 'x-svc-oid': { $ref: '#/components/headers/XSvcOid' }, 'x-execution-id': { $ref: '#/components/headers/XExecutionId' } });
    expect(operation.responses['422'].content['application/json'].example).toEqual({ error: 'invalid item' });
    for (const s of ['401', '403', '404', '414', '504']) expect(operation.responses[s].$ref).toMatch(/^#\/components\/responses\//);
    expect(doc.components.responses.Timeout.content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
    // The runtime answers 414 for a long target and 403 REVISION_NOT_APPROVED for unapproved run-as code.
    expect(doc.components.responses.UriTooLong.description).toContain('URI_TOO_LONG');
    expect(doc.components.responses.Forbidden.description).toContain('REVISION_NOT_APPROVED');
  });
});

describe('GET guards become query parameters', () => {
  const guard = {
    type: 'object',
    properties: { limit: { type: 'integer', description: 'Rows to return' }, q: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
    required: ['q'],
  };
  const doc = build([{ record: endpoint('GET', '/search', { guard: { type: 'inline', schema: guard } }) }]);
  const operation = doc.paths['/search'].get;

  test('one parameter per top-level property, with required flags; no request body', async () => {
    await validate(doc);
    expect(operation.requestBody).toBeUndefined();
    expect(operation.parameters).toEqual([
      { name: 'limit', in: 'query', required: false, schema: { type: 'integer', description: 'Rows to return' }, description: 'Rows to return' },
      { name: 'q', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'tags', in: 'query', required: false, schema: { type: 'array', items: { type: 'string' } } },
    ]);
    expect(operation.responses['400']).toEqual({ $ref: '#/components/responses/BadRequest' });
  });

  test('a guard without top-level properties is one form-exploded object parameter', async () => {
    const anyOf = build([{ record: endpoint('GET', '/x', { guard: { type: 'inline', schema: { anyOf: [{ required: ['a'] }, { required: ['b'] }] } } }) }]);
    await validate(anyOf);
    expect(anyOf.paths['/x'].get.parameters).toEqual([expect.objectContaining({ name: 'query', in: 'query', style: 'form', explode: true })]);
  });
});

describe('response modes', () => {
  const doc = build([
    { record: endpoint('POST', '/none', { noResult: true, successStatus: 204 }) },
    { record: endpoint('POST', '/legacy', { legacyResults: true }) },
    { record: endpoint('POST', '/pop', { popResult: 'order' }) },
    { record: endpoint('POST', '/map', {}), outputSchema: { type: 'object', properties: { a: { type: 'integer' } } } },
    { record: endpoint('GET', '/map-unknown', {}) },
    { record: endpoint('GET', '/static', { componentId: null, staticResponse: { status: 202, headers: { 'cache-control': 'no-store', 'Content-Type': 'text/plain; charset=utf-8' }, body: 'accepted' } }) },
    { record: endpoint('DELETE', '/static-empty', { componentId: null, staticResponse: { status: 204 } }) },
    // The runtime sends no body for these statuses, whatever the mode or the configured body says.
    { record: endpoint('POST', '/map-204', { successStatus: 204 }), outputSchema: { type: 'object' } },
    { record: endpoint('POST', '/pop-205', { popResult: 'order', successStatus: 205 }) },
    { record: endpoint('GET', '/static-204', { componentId: null, staticResponse: { status: 204, body: { ignored: true } } }) },
    { record: endpoint('GET', '/static-forged', { componentId: null, staticResponse: { status: 200, headers: { 'X-Svc-Oid': 'forged', 'X-Execution-Id': 'forged', 'x-kept': 'yes' }, body: 1 } }) },
  ]);

  test('the document validates', async () => {
    await validate(doc);
    checkStructure(doc);
  });

  test('noResult: the success status with no content', () => {
    expect(doc.paths['/none'].post.responses['204'].content).toBeUndefined();
  });

  test('a success status that carries no content (204, 205) documents none, in any mode', () => {
    expect(doc.paths['/map-204'].post.responses['204']).toMatchObject({ description: 'Success, with an empty body' });
    expect(doc.paths['/map-204'].post.responses['204'].content).toBeUndefined();
    expect(doc.paths['/pop-205'].post.responses['205'].content).toBeUndefined();
    expect(doc.paths['/static-204'].get.responses['204'].content).toBeUndefined();
  });

  test('legacyResults: the envelope', () => {
    expect(doc.paths['/legacy'].post.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/LegacyResults' });
    expect(doc.components.schemas.LegacyResults.required).toEqual(['success', 'results', 'executionId']);
  });

  test('popResult without a known schema, and the result map with and without one', () => {
    expect(doc.paths['/pop'].post.responses['200'].content['application/json'].schema).toEqual({});
    expect(doc.paths['/map'].post.responses['200'].content['application/json'].schema).toEqual({ type: 'object', properties: { a: { type: 'integer' } } });
    expect(doc.paths['/map-unknown'].get.responses['200'].content['application/json'].schema).toMatchObject({ type: 'object', additionalProperties: true });
  });

  test('static response: its status, headers, media type and body; no executor responses', () => {
    const op = doc.paths['/static'].get;
    expect(Object.keys(op.responses)).toEqual(['202', '401', '403', '404', '414']);
    expect(op.responses['202'].content).toEqual({ 'text/plain': { schema: {}, example: 'accepted' } });
    expect(op.responses['202'].headers['cache-control']).toEqual({ schema: { type: 'string' }, example: 'no-store' });
    expect(doc.paths['/static-empty'].delete.responses['204'].content).toBeUndefined();
    expect(doc.paths['/static-empty'].delete.requestBody).toBeUndefined();
  });

  test('a configured body larger than 16 KiB as JSON is described, not shown; a smaller one is the example', async () => {
    const large = { items: Array.from({ length: 3000 }, (_, i) => ({ i })) };
    const small = { items: [1, 2, 3] };
    const big = build([
      { record: endpoint('GET', '/large', { componentId: null, staticResponse: { status: 200, body: large } }) },
      { record: endpoint('GET', '/small', { componentId: null, staticResponse: { status: 200, body: small } }) },
      { record: endpoint('POST', '/guarded', { guard: { type: 'inline', schema: { type: 'object' } }, validationFailure: { status: 422, body: large } }) },
    ]);
    const content = big.paths['/large'].get.responses['200'].content['application/json'];
    expect(content.example).toBeUndefined();
    expect(content.schema.description).toBe(`The configured body (${JSON.stringify(large).length} characters as JSON; too large to show here)`);
    expect(big.paths['/small'].get.responses['200'].content['application/json']).toEqual({ schema: {}, example: small });
    expect(big.paths['/guarded'].post.responses['422'].content['application/json'].example).toBeUndefined();
    expect(JSON.stringify(big).length).toBeLessThan(JSON.stringify(large).length);
    await validate(big);
  });

  test('a static response documents its own headers, never the platform\'s in another spelling', () => {
    const headers = doc.paths['/static-forged'].get.responses['200'].headers;
    expect(headers['x-kept']).toEqual({ schema: { type: 'string' }, example: 'yes' });
    expect(Object.keys(headers).map((h) => h.toLowerCase()).filter((h) => h.startsWith('x-svc-') && h !== 'x-svc-oid')).toEqual([]);
    expect(headers['X-Svc-Oid']).toBeUndefined();
    expect(headers['X-Execution-Id']).toBeUndefined();
    expect(headers['x-svc-oid']).toEqual({ $ref: '#/components/headers/XSvcOid' });
  });

  test('component endpoints document api.throw as the default response', () => {
    expect(doc.paths['/pop'].post.responses.default.description).toMatch(/api\.throw/);
  });
});

describe('validation failure', () => {
  test('without a configured failure: 400 problem+json; without a guard on GET: no 400', () => {
    const doc = build([
      { record: endpoint('PUT', '/a', { guard: { type: 'inline', schema: { type: 'object' } } }) },
      { record: endpoint('GET', '/b') },
    ]);
    expect(doc.paths['/a'].put.responses['400']).toEqual({ $ref: '#/components/responses/BadRequest' });
    expect(doc.paths['/b'].get.responses['400']).toBeUndefined();
  });

  test('a failure status equal to a standard one merges both bodies under that status', async () => {
    const doc = build([{ record: endpoint('POST', '/a', { guard: { type: 'inline', schema: { type: 'object' } }, validationFailure: { status: 404, body: { nope: true } } }) }]);
    await validate(doc);
    const r = doc.paths['/a'].post.responses['404'];
    expect(Object.keys(r.content).sort()).toEqual(['application/json', 'application/problem+json']);
    expect(r.content['application/json'].example).toEqual({ nope: true });
  });
});

describe('guard schemas with definitions', () => {
  test('$defs move to components and references are rewritten; recursion through "#" works', async () => {
    const guard = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { item: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/item' } }, parent: { $ref: '#' } } } },
      type: 'object',
      properties: { root: { $ref: '#/$defs/item' } },
    };
    const doc = build([{ record: endpoint('POST', '/tree', { guard: { type: 'inline', schema: guard } }) }]);
    await validate(doc);
    const body = doc.paths['/tree'].post.requestBody.content['application/json'].schema;
    expect(body).toEqual({ $ref: '#/components/schemas/postTree_Body' });
    const root = doc.components.schemas.postTree_Body;
    expect(root.$defs).toBeUndefined();
    expect(root.$schema).toBeUndefined();
    expect(root.properties.root).toEqual({ $ref: '#/components/schemas/postTree_Body_item' });
    expect(doc.components.schemas.postTree_Body_item.properties.parent).toEqual({ $ref: '#/components/schemas/postTree_Body' });
  });

  test('data is not rewritten: a const or default that looks like a reference stays as written', () => {
    // (swagger-parser would try to resolve such data as a reference, so this document is only read.)
    const guard = { $defs: { a: { type: 'string' } }, properties: { x: { const: { $ref: '#/$defs/a' }, default: { $ref: '#' } }, y: { $ref: '#/$defs/a' } } };
    const doc = build([{ record: endpoint('POST', '/data', { guard: { type: 'inline', schema: guard } }) }]);
    const body = doc.paths['/data'].post.requestBody.content['application/json'].schema;
    expect(body.properties).toEqual({ x: { const: { $ref: '#/$defs/a' }, default: { $ref: '#' } }, y: { $ref: '#/components/schemas/postData_Body_a' } });
    expect(doc.components.schemas.postData_Body).toBeUndefined();
  });

  test('component guards: the resolved schema when given, else any JSON with a note', async () => {
    const guard = { type: 'component' as const, componentId: '22222222-2222-4222-8222-222222222222' };
    const doc = build([
      { record: endpoint('POST', '/with', { guard }), guardSchema: { type: 'object', required: ['a'] } },
      { record: endpoint('POST', '/without', { guard }) },
    ]);
    await validate(doc);
    expect(doc.paths['/with'].post.requestBody.content['application/json'].schema).toEqual({ type: 'object', required: ['a'] });
    expect(doc.paths['/without'].post.requestBody).toMatchObject({ description: expect.stringContaining('json-validator'), content: { 'application/json': { schema: {} } } });
  });

  test('hostile property names survive into parameters and schemas', async () => {
    const schema = JSON.parse('{"type": "object", "properties": {"__proto__": {"type": "integer"}, "a\\"b\'c": {"type": "string"}}, "required": ["__proto__"]}');
    const doc = build([{ record: endpoint('GET', '/h', { guard: { type: 'inline', schema } }) }, { record: endpoint('POST', '/h', { guard: { type: 'inline', schema } }) }]);
    await validate(doc);
    expect(doc.paths['/h'].get.parameters.map((p: Json) => [p.name, p.required])).toEqual([['__proto__', true], ['a"b\'c', false]]);
    const posted = doc.paths['/h'].post.requestBody.content['application/json'].schema;
    expect(Object.hasOwn(posted.properties, '__proto__')).toBe(true);
  });
});

describe('paths', () => {
  test('disabled definitions are absent', () => {
    const doc = build([{ record: endpoint('GET', '/on') }, { record: endpoint('GET', '/off', { status: 'disabled' }) }]);
    expect(Object.keys(doc.paths)).toEqual(['/on']);
  });

  test('paths that collide in {param} form share one path item, each operation naming the segment as the key does', async () => {
    const doc = build([
      { record: endpoint('POST', '/users/:userId/keys/:keyId') },
      { record: endpoint('GET', '/users/:id/keys/:key') },
      { record: endpoint('DELETE', '/users/:uid/keys/:k') },
      { record: endpoint('GET', '/users/me/keys/:key') },
    ]);
    await validate(doc);
    checkStructure(doc);
    expect(Object.keys(doc.paths)).toEqual(['/users/{id}/keys/{key}', '/users/me/keys/{key}']);
    const item = doc.paths['/users/{id}/keys/{key}'];
    expect(Object.keys(item)).toEqual(['get', 'post', 'delete']);
    expect(item.post.parameters[0]).toEqual({ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Named "userId" in this Endpoint\'s definition' });
  });

  test('root path, braces and escapes in static segments', async () => {
    const doc = build([{ record: endpoint('GET', '/') }, { record: endpoint('GET', '/caf%C3%A9/%7Bx%7D') }, { record: endpoint('GET', '/a{b}') }]);
    await validate(doc);
    expect(Object.keys(doc.paths).sort()).toEqual(['/', '/a%7Bb%7D', '/caf%C3%A9/%7Bx%7D']);
    expect(doc.paths['/'].get.operationId).toBe('getRoot');
    expect(doc.paths['/caf%C3%A9/%7Bx%7D'].get.tags).toEqual(['café']);
  });

  test('two active definitions with one method and shape (never stored): the first in order is documented', () => {
    const doc = build([{ record: endpoint('GET', '/d/:b') }, { record: endpoint('GET', '/d/:a') }]);
    expect(Object.keys(doc.paths)).toEqual(['/d/{a}']);
    expect(doc.paths['/d/{a}'].get.summary).toBe('GET /d/:a');
  });

  test('operation ids: unique when sanitizing collides, and independent of input order', () => {
    const records = [endpoint('GET', '/a-b'), endpoint('GET', '/a_b'), endpoint('GET', '/ab'), endpoint('POST', '/orders/:id')];
    const doc = build(records.map((record) => ({ record })));
    const ids = operationsOf(doc).map((o) => o.operationId as string);
    expect(new Set(ids).size).toBe(4);
    expect(ids).toContain('getAb');
    expect(ids).toContain('postOrdersById');
    expect(ids.filter((id) => /^getAB_[0-9a-f]{8}$/.test(id))).toHaveLength(2);
    expect(build([...records].reverse().map((record) => ({ record })))).toEqual(doc);
  });
});

describe('many endpoints', () => {
  const methods: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
  const modes: Partial<EndpointRecord>[] = [
    {},
    { popResult: 'out' },
    { noResult: true, successStatus: 204 },
    { legacyResults: true },
    { componentId: null, staticResponse: { status: 200, body: { ok: true } } },
    { successStatus: 201 },
  ];
  const guards: Partial<EndpointRecord>[] = [
    {},
    { guard: { type: 'inline', schema: { type: 'object', properties: { n: { type: 'integer' }, s: { type: 'string', pattern: '^a', maxLength: 9 } }, required: ['n'], additionalProperties: false } } },
    { guard: { type: 'inline', schema: { $defs: { p: { type: 'integer', minimum: 0 } }, type: 'object', properties: { p: { $ref: '#/$defs/p' } } } }, validationFailure: { status: 422, body: { bad: true } } },
    { guard: { type: 'component', componentId: '33333333-3333-4333-8333-333333333333' } },
  ];
  const endpoints: OpenApiEndpoint[] = [];
  for (let i = 0; i < 200; i++) {
    const method = methods[i % methods.length]!;
    // Unique per method and shape (as active definitions are), while shapes shared by other methods
    // and differently named segments at one position still occur, to exercise merged path items.
    const block = Math.floor(i / 35);
    const shape = i % 4 === 0 ? `/svc${i % 7}/v${block}/:id${i}` : i % 4 === 1 ? `/svc${i % 7}/v${block}/:item${i}/sub` : `/svc${i % 7}/r${i}`;
    const record = endpoint(method, shape, { ...modes[i % modes.length], ...guards[i % guards.length], name: `Endpoint ${i}`, description: i % 3 === 0 ? `Does thing ${i}` : null });
    endpoints.push({ record, ...(i % 5 === 1 ? { outputSchema: { type: 'object', properties: { v: { type: 'number' } } } } : {}) });
  }

  test('200 endpoints of every method, response mode and guard kind: valid, unique ids, consistent paths', async () => {
    const doc = build(endpoints);
    const dereferenced = await validate(doc);
    checkStructure(doc);
    const operations = operationsOf(doc);
    expect(operations).toHaveLength(200);
    // Some path items hold several methods under differently named segments.
    const merged = (Object.values(doc.paths) as Json[]).filter((item) => Object.keys(item).length > 1);
    expect(merged.length).toBeGreaterThan(5);
    expect(merged.some((item) => (Object.values(item) as Json[]).some((op) => op.parameters?.some((p: Json) => p.description?.startsWith('Named'))))).toBe(true);
    // Every embedded schema is still a schema a JSON Schema 2020-12 validator compiles.
    const ajv = new Ajv2020({ strict: false });
    for (const op of operationsOf(dereferenced)) {
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (body !== undefined) expect(() => ajv.compile(body)).not.toThrow();
    }
    // Each mode is present.
    const successContent = operations.map((op) => JSON.stringify(Object.entries(op.responses).find(([s]) => s.startsWith('2'))));
    expect(successContent.some((s) => s.includes('LegacyResults'))).toBe(true);
    expect(successContent.some((s) => s.includes('"204"'))).toBe(true);
  });

  test('generation is deterministic and fast enough to serve on request', () => {
    const start = performance.now();
    const a = build(endpoints);
    const elapsed = performance.now() - start;
    expect(build([...endpoints].reverse())).toEqual(a);
    expect(elapsed).toBeLessThan(500);
  });
});
