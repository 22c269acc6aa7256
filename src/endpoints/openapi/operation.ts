// One Endpoint as an OpenAPI operation: path and query parameters, the guard as request body,
// the success response of its response mode, the validation-failure response, problem responses.
import { type EndpointRecord, isServedHeader } from '../../core/definitions/index.ts';
import { ResponseSet } from './responses.ts';
import type { JsonObject, SchemaComponents } from './schemas.ts';
import { carriesNoContent } from '../../core/http/index.ts';

export interface OperationSource {
  record: EndpointRecord;
  outputSchema?: unknown;
  guardSchema?: unknown;
}

export interface OperationContext {
  operationId: string;
  tag: string;
  /** Parameter names as the shared path key writes them, and as this definition names them. */
  templateNames: string[];
  ownNames: string[];
  components: SchemaComponents;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export function buildOperation(source: OperationSource, ctx: OperationContext): JsonObject {
  const { record } = source;
  const operation: JsonObject = { operationId: ctx.operationId, summary: record.name };
  if (record.description) operation.description = record.description;
  operation.tags = [ctx.tag];

  const parameters: JsonObject[] = ctx.templateNames.map((name, i) => {
    const own = ctx.ownNames[i];
    const parameter: JsonObject = { name, in: 'path', required: true, schema: { type: 'string' } };
    // Another definition on this path item names the segment first; the value is the same.
    if (own !== undefined && own !== name) parameter.description = `Named "${own}" in this Endpoint's definition`;
    return parameter;
  });

  const guarded = record.guard !== undefined;
  const guardSchema = record.guard?.type === 'inline' ? record.guard.schema : source.guardSchema;
  const guardNote = record.guard?.type === 'component' ? `Validated by the json-validator component ${record.guard.componentId}` : undefined;
  if (record.method === 'GET') {
    if (guarded && guardSchema !== undefined) parameters.push(...queryParameters(ctx, guardSchema));
  } else if (guarded) {
    const schema = guardSchema === undefined ? {} : ctx.components.embed(`${ctx.operationId}_Body`, guardSchema);
    operation.requestBody = { required: true, ...(guardNote ? { description: guardNote } : {}), content: { 'application/json': { schema } } };
  } else if (record.method !== 'DELETE' && record.componentId) {
    operation.requestBody = { required: false, description: 'Passed to the component as sent (no guard)', content: { 'application/json': { schema: {} } } };
  }
  if (parameters.length > 0) operation.parameters = parameters;

  const responses = new ResponseSet();
  success(source, ctx, responses);
  if (guarded) {
    const failure = record.validationFailure;
    if (failure) {
      const response: JsonObject = { description: 'Input validation failed: the body configured on the Endpoint' };
      if (failure.body !== undefined) response.content = { 'application/json': mediaOf(failure.body) };
      responses.add(failure.status, response);
    } else {
      responses.addStandard('BadRequest');
    }
  } else if (BODY_METHODS.has(record.method)) {
    responses.addStandard('BadRequest'); // malformed JSON
  }
  responses.addStandard('Unauthorized');
  responses.addStandard('Forbidden');
  responses.addStandard('NotFound');
  responses.addStandard('UriTooLong');
  if (BODY_METHODS.has(record.method)) {
    responses.addStandard('PayloadTooLarge');
    responses.addStandard('UnsupportedMediaType');
  }
  if (record.componentId) {
    responses.addStandard('ComponentError');
    responses.addStandard('BadGateway');
    responses.addStandard('ComponentNotReady');
    responses.addStandard('Timeout');
    responses.add('default', { description: 'A status and body chosen by the component with api.throw(status, body)', content: { 'application/json': { schema: {} } } });
  }
  operation.responses = responses.toJSON();
  operation['x-endpoint-id'] = record.id;
  return operation;
}

/** GET guards validate the query: one parameter per top-level property, else one object parameter. */
function queryParameters(ctx: OperationContext, schema: unknown): JsonObject[] {
  const embedded = ctx.components.embed(`${ctx.operationId}_Query`, schema);
  if (isObject(embedded) && isObject(embedded.properties)) {
    const required = Array.isArray(embedded.required) ? embedded.required : [];
    return Object.entries(embedded.properties).map(([name, property]) => {
      const parameter: JsonObject = { name, in: 'query', required: required.includes(name), schema: property };
      if (isObject(property) && typeof property.description === 'string') parameter.description = property.description;
      return parameter;
    });
  }
  if (embedded === true || (isObject(embedded) && Object.keys(embedded).length === 0)) return [];
  // A schema that is not a plain object of properties: the whole query, one form-exploded object.
  return [{ name: 'query', in: 'query', required: false, style: 'form', explode: true, description: 'The query string as an object, validated by the guard', schema: embedded }];
}

/**
 * Configured bodies (a static response, a validation failure's) are shown as examples up to this
 * size as JSON. A body of megabytes made every generated document megabytes per Endpoint, built
 * and serialized on the serving thread at each request.
 */
const EXAMPLE_LIMIT_CHARS = 16 * 1024;
/** Sizes of configured bodies, per body object: unchanged definitions are the same objects across requests. */
const exampleSizes = new WeakMap<object, number>();

/** The media type object of a configured body: any schema, and the body as its example when small enough. */
function mediaOf(body: unknown): JsonObject {
  let size: number;
  if (body !== null && typeof body === 'object') {
    size = exampleSizes.get(body) ?? JSON.stringify(body).length;
    exampleSizes.set(body, size);
  } else {
    size = JSON.stringify(body)?.length ?? 0;
  }
  if (size <= EXAMPLE_LIMIT_CHARS) return { schema: {}, example: body };
  return { schema: { description: `The configured body (${size} characters as JSON; too large to show here)` } };
}

function success(source: OperationSource, ctx: OperationContext, responses: ResponseSet): void {
  const { record } = source;
  const headers: JsonObject = { 'x-svc-oid': { $ref: '#/components/headers/XSvcOid' } };
  const isStatic = !record.componentId && record.staticResponse !== undefined;
  if (isStatic) {
    const configured = record.staticResponse!;
    const response: JsonObject = { description: 'The configured static response' };
    let mediaType = 'application/json';
    for (const [name, value] of Object.entries(configured.headers ?? {})) {
      // Only what the runtime sends: not the platform's own, nor what a row stored before a rule holds.
      if (!isServedHeader(name, value)) continue;
      if (name.toLowerCase() === 'content-type') mediaType = value.split(';')[0]!.trim() || mediaType;
      else headers[name] = { schema: { type: 'string' }, example: value };
    }
    response.headers = headers;
    if (configured.body !== undefined && !carriesNoContent(configured.status)) response.content = { [mediaType]: mediaOf(configured.body) };
    responses.add(configured.status, response);
    return;
  }
  if (record.componentId) headers['x-execution-id'] = { $ref: '#/components/headers/XExecutionId' };
  const status = record.successStatus ?? 200;
  const output = source.outputSchema === undefined ? undefined : ctx.components.embed(`${ctx.operationId}_Result`, source.outputSchema);
  let response: JsonObject;
  if (record.noResult || carriesNoContent(status)) {
    response = { description: 'Success, with an empty body' };
  } else if (record.legacyResults) {
    response = { description: 'Success: the legacy results envelope', content: { 'application/json': { schema: { $ref: '#/components/schemas/LegacyResults' } } } };
  } else if (record.popResult) {
    response = { description: `Success: the "${record.popResult}" result`, content: { 'application/json': { schema: output ?? {} } } };
  } else {
    const schema = output ?? { type: 'object', description: 'The visible results, by name', additionalProperties: true };
    response = { description: 'Success: the visible results of the component, by name', content: { 'application/json': { schema } } };
  }
  response.headers = headers;
  responses.add(status, response);
}
