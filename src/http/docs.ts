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
}

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
  for (const status of doc.public ? ['400'] : ['400', '401', '403', '404']) responses[status] ??= problem;
  if (doc.body) {
    responses['415'] = problem;
    responses['422'] = problem;
  }
  return {
    detail: {
      summary: doc.summary,
      tags: [doc.tag],
      ...(doc.description ? { description: doc.description } : {}),
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
