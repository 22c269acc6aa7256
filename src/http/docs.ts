// OpenAPI `detail` for routes: the bodies are validated by our compiled schemas, so the
// schemas are attached to the docs here rather than to Elysia's own validator.
import { Type, type TSchema } from '@sinclair/typebox';
import type { DocumentDecoration } from 'elysia';
import { PROBLEM_CODES, type ProblemCode } from '../core/http/index.ts';

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
  /**
   * The problems this operation answers beyond the common ones, by code (409 conflicts, 412 for
   * If-Match, 422 beyond VALIDATION_FAILED): each status of these answers exactly these codes.
   */
  errors?: OperationCode[];
}

/** Codes particular to some operations, and their status. */
const OPERATION_CODES = {
  CONFLICT: 409,
  VERSION_CONFLICT: 409,
  ROUTE_CONFLICT: 409,
  AGENT_DISABLED: 409,
  RUN_FINISHED: 409,
  MAX_CHILD_RUNS: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  APPROVAL_RESOLVED: 409,
  ENDPOINT_ACTIVE: 409,
  COMPONENT_IN_USE: 409,
  DEPLOYMENT_NOT_READY: 409,
  PRECONDITION_FAILED: 412,
  SOURCE_INVALID: 422,
  RESERVED_METADATA_KEY: 422,
  METADATA_TOO_LARGE: 422,
  MODEL_NOT_ENABLED: 422,
  UNKNOWN_DIGEST: 422,
  INVALID_DEFINITION: 422,
} as const satisfies Partial<Record<ProblemCode, number>>;
type OperationCode = keyof typeof OPERATION_CODES;

/** The codes each common problem status carries on any operation. */
const COMMON_CODES: Record<string, string> = {
  '400': 'BAD_REQUEST, MALFORMED_JSON (a body that is not JSON) or INVALID_QUERY (a list parameter)',
  '401': 'UNAUTHORIZED: no valid credential',
  '403': 'FORBIDDEN, PLATFORM_ACCESS_DISABLED (the principal may not use the API), DEBUG_FORBIDDEN (`debug=true` without INSTANCE_ADMIN) or CREDENTIAL_FROM_EXECUTION',
  '404': 'NOT_FOUND (also for a record of another workspace)',
  '413': 'PAYLOAD_TOO_LARGE',
  '415': 'UNSUPPORTED_MEDIA_TYPE: the body must be application/json',
};

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
/** A problem whose `code` is one of `codes`. */
const problemWith = (codes: readonly ProblemCode[]) => ({
  description: codes.join(' or '),
  headers: OID_HEADER,
  content: { 'application/problem+json': { schema: { allOf: [schemaRef('Problem'), { type: 'object', properties: { code: { enum: codes } } }] } } },
});
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
  for (const status of doc.public ? ['400'] : ['400', '401', '403', '404']) responses[status] ??= status === '401' ? UNAUTHORIZED : problemOf(COMMON_CODES[status]!);
  const codes = new Map<number, ProblemCode[]>(doc.body ? [[422, ['VALIDATION_FAILED']]] : []);
  for (const code of doc.errors ?? []) codes.set(OPERATION_CODES[code], [...(codes.get(OPERATION_CODES[code]) ?? []), code]);
  if (doc.body) {
    responses['413'] = problemOf(COMMON_CODES['413']!);
    responses['415'] = problemOf(COMMON_CODES['415']!);
  }
  for (const [status, listed] of codes) responses[String(status)] ??= problemWith(listed);
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
      items: {
        type: 'object',
        required: ['pointer', 'message'],
        properties: { pointer: { type: 'string' }, message: { type: 'string' }, code: { type: 'string', enum: PROBLEM_CODES, description: 'What is wrong there, where more particular than the problem\'s code' } },
      },
    },
  },
} as const;

/** Blocks of the response records. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const DateTime = (options: { description?: string } = {}) => Type.String({ ...options, format: 'date-time' });
export const Id = (options: { description?: string } = {}) => Type.String({ ...options, format: 'uuid' });
