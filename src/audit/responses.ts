// The audit entry as GET /audit answers it.
import { Type } from '@sinclair/typebox';
import { DateTime, Id, Nullable, projectionOf } from '../http/index.ts';

const AuditEntryJson = Type.Object(
  {
    id: Id(),
    at: DateTime(),
    kind: Type.Union([Type.Literal('change'), Type.Literal('invocation')]),
    action: Type.String(),
    actorId: Nullable(Id()),
    executionAccountId: Nullable(Id()),
    resourceType: Type.String(),
    resourceId: Nullable(Id()),
    workspaceId: Nullable(Id()),
    beforeVersion: Nullable(Type.Integer()),
    afterVersion: Nullable(Type.Integer()),
    status: Nullable(Type.Integer()),
    durationMs: Nullable(Type.Number()),
    oid: Nullable(Type.String()),
    executionId: Nullable(Id()),
    details: Type.Unknown(),
  },
  { title: 'AuditEntry', additionalProperties: false },
);

export const AuditEntryProjection = projectionOf(AuditEntryJson);

export const auditResponseSchemas = [AuditEntryProjection];
