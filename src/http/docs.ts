// OpenAPI `detail` for routes: the bodies are validated by our compiled schemas, so the
// schemas are attached to the docs here rather than to Elysia's own validator.
import { Type, type TSchema } from '@sinclair/typebox';
import type { DocumentDecoration } from 'elysia';
import { PROBLEM_CODES } from '../core/http/index.ts';

export interface OperationDoc {
  /** Readable and unique: `listAgents`, `updateAgent` (what a generated client names the method). */
  operationId: string;
  summary: string;
  tag: string;
  description?: string;
  body?: TSchema;
  /**
   * Success status → response schema (or a description only). A schema with a `title` is a
   * record registered in components.schemas (componentSchemas) and is answered by `$ref`.
   */
  responses?: Record<number, TSchema | string | MediaResponse>;
  /** Path parameters that are ids (`format: uuid`). */
  ids?: string[];
  /** Request headers the operation reads. */
  headers?: RequestHeader[];
  /** The success responses carry an `ETag` (the record's version). */
  etag?: boolean;
  /** Public operations (health, token exchange) carry no security requirement. */
  public?: boolean;
  /** A list-engine list (DESIGN §6): its query parameters and the `{data, meta}` envelope of these items (a projectionOf). */
  list?: TSchema;
  /** Further query parameters (besides a list's). */
  query?: { name: string; description: string; schema?: Record<string, unknown> }[];
  /** Problem statuses beyond the common ones (e.g. 409 conflicts, 412 If-Match). */
  errors?: number[];
}

/** An empty list parameter is 400, like a malformed one. */
const text = { type: 'string', minLength: 1 };
const LIST_PARAMETERS: { name: string; description: string; schema: Record<string, unknown> }[] = [
  { name: 'offset', description: 'Rows to skip (default 0)', schema: { type: 'integer', minimum: 0 } },
  { name: 'limit', description: 'Rows per page, 0..10000 (default 100)', schema: { type: 'integer', minimum: 0, maximum: 10000 } },
  { name: 'count', description: '`true` adds meta.count, the total number of matching rows', schema: { type: 'boolean' } },
  { name: 'filter', description: 'A filter tree as JSON (`{"field","op","value"}`, `{"and"|"or":[…]}`, `{"not":…}`) or bracket style (`filter[field]=…&filter[op]=…`)', schema: text },
  { name: 'sort', description: 'Fields, `-` for descending: `-createdAt,name`, JSON, or `sort[0]=…`', schema: text },
  { name: 'fields', description: 'Projection: field names, or entries `{fn, args, as}` (JSON or bracket style)', schema: text },
  { name: 'distinct', description: 'Field names whose distinct combinations the rows are (a comma list, JSON array or `distinct[0]=…`; where the list enables it)', schema: text },
  { name: 'groupBy', description: 'Fields to group by, with aggregates in `fields` (where enabled)', schema: text },
  { name: 'joins', description: 'Explicit joins `[{table, alias, type, on: {left, op, right}}]` (where enabled)', schema: text },
  { name: 'cast', description: 'Casts of fields `{field: TYPE}` (where enabled)', schema: text },
  { name: 'cte', description: 'Named sub-queries `{name: {from, filter, fields, groupBy, sort, limit}}` (where enabled)', schema: text },
  { name: 'debug', description: '`true` adds the compiled SQL, its parameters and the plan (INSTANCE_ADMIN only)', schema: { type: 'boolean' } },
];

/** A success response in another media type (Server-Sent Events). */
interface MediaResponse {
  mediaType: string;
  description: string;
  schema: Record<string, unknown>;
}

export const EVENT_STREAM: MediaResponse = {
  mediaType: 'text/event-stream',
  description: 'Server-Sent Events: `id: <seq>`, `event: <type>`, `data: <a RunEvent as JSON>`',
  schema: { type: 'string' },
};

type RequestHeader = 'If-Match' | 'Idempotency-Key' | 'Last-Event-ID';

const HEADER_PARAMETERS: Record<RequestHeader, { description: string; schema: Record<string, unknown> }> = {
  'If-Match': { description: 'The ETag of the version the change applies to (412 when it is no longer current)', schema: { type: 'string', example: '"3"' } },
  'Idempotency-Key': { description: 'Repeats by the same principal within 24 h answer the first result (1–255 printable characters)', schema: { type: 'string', minLength: 1, maxLength: 255 } },
  'Last-Event-ID': { description: 'Resume after this event seq', schema: { type: 'string', pattern: '^[0-9]+$' } },
};

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const OID_HEADER = { 'x-svc-oid': { $ref: '#/components/headers/XSvcOid' } };
const ETAG_HEADER = { etag: { $ref: '#/components/headers/ETag' } };

/** A named record by `$ref`; an untitled schema inline. */
function schemaOf(schema: TSchema): unknown {
  return typeof schema.title === 'string' ? schemaRef(schema.title) : schema;
}

function listEnvelope(record: TSchema) {
  return {
    description: 'A page: `{data, meta: {offset, limit, hasMore, count?}, debug?}`',
    headers: OID_HEADER,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['data', 'meta'],
          properties: {
            data: { type: 'array', items: schemaOf(record) },
            meta: schemaRef('ListMeta'),
            debug: { type: 'object', description: 'The compiled SQL, its parameters and the plan (`debug=true`, INSTANCE_ADMIN)' },
          },
        },
      },
    },
  };
}

const problemOf = (description: string, headers: Record<string, unknown> = {}) => ({
  description,
  headers: { ...OID_HEADER, ...headers },
  content: { 'application/problem+json': { schema: schemaRef('Problem') } },
});
const problem = problemOf('Problem details (RFC 9457)');
/** What any operation may answer besides its own: a target too long, an internal error, the database or server unavailable. */
const COMMON_PROBLEMS: Record<string, unknown> = {
  '414': problemOf('URI_TOO_LONG: the path and query are over the limit'),
  '500': problemOf('INTERNAL'),
  '503': problemOf('SERVICE_UNAVAILABLE (database unavailable, server starting) or QUERY_TIMEOUT (a list query past its time limit); retry later', {
    'retry-after': { description: 'Seconds to wait', schema: { type: 'integer' } },
  }),
};
const UNAUTHORIZED = problemOf('UNAUTHORIZED: no valid credential', { 'www-authenticate': { description: '`Bearer`', schema: { type: 'string' } } });

export function operation(doc: OperationDoc): { detail: DocumentDecoration } {
  const responses: Record<string, unknown> = {};
  const successHeaders = doc.etag ? { ...OID_HEADER, ...ETAG_HEADER } : OID_HEADER;
  for (const [status, schema] of Object.entries(doc.responses ?? { 200: 'OK' })) {
    responses[status] =
      typeof schema === 'string'
        ? { description: schema, headers: successHeaders }
        : 'mediaType' in schema
          ? { description: schema.description, headers: successHeaders, content: { [schema.mediaType]: { schema: schema.schema } } }
          : { description: schema.description ?? schema.title ?? 'OK', headers: successHeaders, content: { 'application/json': { schema: schemaOf(schema) } } };
  }
  if (doc.list && doc.responses === undefined) responses['200'] = listEnvelope(doc.list);
  for (const status of doc.public ? ['400'] : ['400', '401', '403', '404']) responses[status] ??= status === '401' ? UNAUTHORIZED : problem;
  if (doc.body) {
    responses['413'] = problem;
    responses['415'] = problem;
    responses['422'] = problem;
  }
  for (const status of doc.errors ?? []) responses[String(status)] ??= problem;
  for (const [status, response] of Object.entries(COMMON_PROBLEMS)) responses[status] ??= response;
  const query = [...(doc.list ? LIST_PARAMETERS : []), ...(doc.query ?? [])];
  const parameters = [
    ...(doc.ids ?? []).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string', format: 'uuid' } })),
    ...(doc.headers ?? []).map((name) => ({ name, in: 'header', required: false, ...HEADER_PARAMETERS[name] })),
    ...query.map((q) => ({ name: q.name, in: 'query', required: false, description: q.description, schema: q.schema ?? text })),
  ];
  return {
    detail: {
      operationId: doc.operationId,
      summary: doc.summary,
      tags: [doc.tag],
      ...(doc.description ? { description: doc.description } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(doc.public ? { security: [] } : { security: [{ bearer: [] }] }),
      ...(doc.body ? { requestBody: { required: true, content: { 'application/json': { schema: doc.body } } } } : {}),
      responses,
    } as DocumentDecoration,
  };
}

const ListMetaSchema = {
  type: 'object',
  required: ['offset', 'limit', 'hasMore'],
  properties: {
    offset: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: 0 },
    hasMore: { type: 'boolean' },
    count: { type: 'integer', minimum: 0, description: 'The number of matching rows (`count=true`)' },
  },
};

/**
 * A record as its list returns it, `<title>Projection`: `fields` may drop any property, and
 * aggregates or aliases add others, so none is required and others are allowed.
 */
export function projectionOf(record: TSchema): TSchema {
  const { required: _required, additionalProperties: _closed, ...open } = record;
  const title = `${String(record.title)}Projection`;
  return { ...open, title, description: `${String(record.title)} as a list returns it: \`fields\` may drop any property or add aggregates and aliases` } as TSchema;
}

/** components.schemas and components.headers of the document: Problem, ListMeta and each record by its title. */
export function documentComponents(records: readonly TSchema[]) {
  const schemas: Record<string, unknown> = { Problem: ProblemSchema, ListMeta: ListMetaSchema };
  for (const record of records) {
    if (typeof record.title !== 'string') throw new Error('a response record needs a title');
    schemas[record.title] = record;
  }
  return {
    schemas,
    headers: {
      XSvcOid: { description: 'The operation id: the caller\'s valid `x-svc-oid`, else a new one; problems carry it as `oid`', schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' } },
      ETag: { description: 'The record\'s version as a strong ETag (`"3"`), for `If-Match`', schema: { type: 'string' } },
    },
  };
}

/** The shared Problem schema registered in components. */
const ProblemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string', enum: PROBLEM_CODES, description: 'The stable machine code (DESIGN §3)' },
    detail: { type: 'string' },
    oid: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', required: ['pointer', 'message'], properties: { pointer: { type: 'string' }, message: { type: 'string' } } },
    },
  },
} as const;

/** Blocks of the response records. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const DateTime = (options: { description?: string } = {}) => Type.String({ ...options, format: 'date-time' });
export const Id = (options: { description?: string } = {}) => Type.String({ ...options, format: 'uuid' });
