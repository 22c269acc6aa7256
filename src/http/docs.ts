// OpenAPI `detail` for routes: the bodies are validated by our compiled schemas, so the
// schemas are attached to the docs here rather than to Elysia's own validator.
import type { TSchema } from '@sinclair/typebox';
import type { DocumentDecoration } from 'elysia';

export interface OperationDoc {
  summary: string;
  tag: string;
  description?: string;
  body?: TSchema;
  /** Success status → response schema (or a description only). */
  responses?: Record<number, TSchema | string>;
  /** Public operations (health, token exchange) carry no security requirement. */
  public?: boolean;
  /** A list-engine list (DESIGN §6): its query parameters and the `{data, meta}` envelope. */
  list?: boolean;
  /** Further query parameters (besides a list's). */
  query?: { name: string; description: string; schema?: Record<string, unknown> }[];
  /** Problem statuses beyond the common ones (e.g. 409 conflicts, 412 If-Match). */
  errors?: number[];
}

const text = { type: 'string' };
const LIST_PARAMETERS: { name: string; description: string; schema: Record<string, unknown> }[] = [
  { name: 'offset', description: 'Rows to skip (default 0)', schema: { type: 'integer', minimum: 0 } },
  { name: 'limit', description: 'Rows per page, 0..10000 (default 100)', schema: { type: 'integer', minimum: 0, maximum: 10000 } },
  { name: 'count', description: '`true` adds meta.count, the total number of matching rows', schema: { type: 'boolean' } },
  { name: 'filter', description: 'A filter tree as JSON (`{"field","op","value"}`, `{"and"|"or":[…]}`, `{"not":…}`) or bracket style (`filter[field]=…&filter[op]=…`)', schema: text },
  { name: 'sort', description: 'Fields, `-` for descending: `-createdAt,name`, JSON, or `sort[0]=…`', schema: text },
  { name: 'fields', description: 'Projection: field names, or entries `{fn, args, as}` (JSON or bracket style)', schema: text },
  { name: 'distinct', description: '`true` for distinct rows of the projection (where the list enables it)', schema: text },
  { name: 'groupBy', description: 'Fields to group by, with aggregates in `fields` (where enabled)', schema: text },
  { name: 'joins', description: 'Explicit joins `[{table, alias, type, on: {left, op, right}}]` (where enabled)', schema: text },
  { name: 'cast', description: 'Casts of fields `{field: TYPE}` (where enabled)', schema: text },
  { name: 'cte', description: 'Named sub-queries `{name: {from, filter, fields, groupBy, sort, limit}}` (where enabled)', schema: text },
  { name: 'debug', description: '`true` adds the compiled SQL, its parameters and the plan (INSTANCE_ADMIN only)', schema: { type: 'boolean' } },
];

const LIST_ENVELOPE = {
  description: 'A page: `{data, meta: {offset, limit, hasMore, count?}, debug?}`',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['data', 'meta'],
        properties: {
          data: { type: 'array', items: { type: 'object' } },
          meta: {
            type: 'object',
            required: ['offset', 'limit', 'hasMore'],
            properties: { offset: { type: 'integer' }, limit: { type: 'integer' }, hasMore: { type: 'boolean' }, count: { type: 'integer' } },
          },
          debug: { type: 'object' },
        },
      },
    },
  },
};

const problem = {
  description: 'Problem details (RFC 9457)',
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
};

export function operation(doc: OperationDoc): { detail: DocumentDecoration } {
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(doc.responses ?? { 200: 'OK' })) {
    responses[status] =
      typeof schema === 'string'
        ? { description: schema }
        : { description: schema.description ?? 'OK', content: { 'application/json': { schema } } };
  }
  if (doc.list && doc.responses === undefined) responses['200'] = LIST_ENVELOPE;
  for (const status of doc.public ? ['400'] : ['400', '401', '403', '404']) responses[status] ??= problem;
  if (doc.body) {
    responses['413'] = problem;
    responses['415'] = problem;
    responses['422'] = problem;
  }
  for (const status of doc.errors ?? []) responses[String(status)] ??= problem;
  const query = [...(doc.list ? LIST_PARAMETERS : []), ...(doc.query ?? [])];
  return {
    detail: {
      summary: doc.summary,
      tags: [doc.tag],
      ...(doc.description ? { description: doc.description } : {}),
      ...(query.length > 0 ? { parameters: query.map((q) => ({ name: q.name, in: 'query', required: false, description: q.description, schema: q.schema ?? text })) } : {}),
      ...(doc.public ? { security: [] } : { security: [{ bearer: [] }] }),
      ...(doc.body ? { requestBody: { required: true, content: { 'application/json': { schema: doc.body } } } } : {}),
      responses,
    } as DocumentDecoration,
  };
}

/** The shared Problem schema registered in components. */
export const ProblemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string' },
    detail: { type: 'string' },
    oid: { type: 'string' },
    errors: {
      type: 'array',
      items: { type: 'object', required: ['pointer', 'message'], properties: { pointer: { type: 'string' }, message: { type: 'string' } } },
    },
  },
} as const;
