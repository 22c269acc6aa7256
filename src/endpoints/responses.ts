// What the endpoint routes answer (DESIGN §8): definitions, contract checks, statistics.
import { Type } from '@sinclair/typebox';
import { DateTime, Id, Nullable, projectionOf } from '../http/index.ts';

const Issue = Type.Object({ code: Type.String(), message: Type.String(), pointer: Type.Optional(Type.String()) });

export const ContractStatusJson = Type.Object(
  { valid: Type.Boolean(), errors: Type.Array(Issue), warnings: Type.Array(Issue), checkedAt: DateTime() },
  { title: 'ContractStatus' },
);

/** The definition's own fields (DESIGN §8: request, response, security, execution…) besides these. */
export const EndpointJson = Type.Object(
  {
    id: Id(),
    workspaceId: Id(),
    name: Type.String(),
    description: Nullable(Type.String()),
    method: Type.String(),
    path: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]),
    componentId: Nullable(Id()),
    contractStatus: Nullable(Type.Ref('#/components/schemas/ContractStatus')),
    version: Type.Integer({ minimum: 0 }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { title: 'Endpoint' },
);

const count = () => Type.Integer({ minimum: 0 });
export const EndpointStatisticsJson = Type.Object(
  {
    endpointId: Id(),
    invocations: count(),
    byStatusClass: Type.Object({ '2xx': count(), '3xx': count(), '4xx': count(), '5xx': count() }),
    latencyMs: Type.Object({ p50: Type.Number(), p95: Type.Number(), p99: Type.Number() }),
    lastInvokedAt: Nullable(DateTime()),
  },
  { title: 'EndpointStatistics', additionalProperties: false },
);

export const GeneratedOpenApiJson = Type.Object({ openapi: Type.String(), paths: Type.Record(Type.String(), Type.Unknown()) }, { title: 'GeneratedOpenApi', description: 'An OpenAPI 3.1 document of active Endpoints' });

export const EndpointSettingsJson = Type.Object(
  {
    executionPolicy: Type.Object({
      mode: Type.Union([Type.Literal('CALLER'), Type.Literal('SERVICE_ACCOUNT'), Type.Literal('SYSTEM')]),
      serviceAccountId: Type.Optional(Id()),
    }),
    currentUser: Type.Union([Type.Literal('BUSINESS_USER'), Type.Literal('EXECUTION_ACCOUNT')]),
    saved: Type.Boolean({ description: 'false: nothing saved, the legacy SYSTEM authority applies' }),
  },
  { title: 'EndpointSettings', additionalProperties: false },
);

export const EndpointProjection = projectionOf(EndpointJson);

export const endpointResponseSchemas = [EndpointProjection, EndpointJson, EndpointSettingsJson, ContractStatusJson, EndpointStatisticsJson, GeneratedOpenApiJson];
