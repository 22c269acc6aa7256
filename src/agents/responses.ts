// The Agent record as the API answers it (DESIGN §4), for the OpenAPI document.
import { Type } from '@sinclair/typebox';
import { DateTime, Id, Nullable, projectionOf } from '../http/index.ts';
import { AgentConfig, AgentPolicy } from './schema.ts';

const Json = Type.Record(Type.String(), Type.Unknown());

export const AgentJson = Type.Object(
  {
    id: Id(),
    workspaceId: Id(),
    name: Type.String(),
    desc: Nullable(Type.String()),
    status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('PAUSED'), Type.Literal('DISABLED')]),
    ownerId: Id(),
    ownerType: Type.Union([Type.Literal('USER'), Type.Literal('GROUP'), Type.Literal('SERVICE_ACCOUNT')]),
    serviceAccountUserId: Nullable(Id()),
    metadata: Json,
    // As stored: every write validates them against these schemas.
    config: AgentConfig,
    policy: AgentPolicy,
    version: Type.Integer({ minimum: 0 }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { title: 'Agent', additionalProperties: false },
);
export const AgentProjection = projectionOf(AgentJson);

export const agentResponseSchemas = [AgentProjection, AgentJson];
