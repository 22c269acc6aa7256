// What the accounts routes answer (DESIGN §2): users, service accounts, keys, workspaces, groups, tokens.
import { Type } from '@sinclair/typebox';
import { DateTime, Id, Nullable, projectionOf } from '../http/index.ts';

const common = { id: Id(), name: Type.String(), roles: Type.Array(Type.String()), platformAccess: Type.Boolean(), workspaceIds: Type.Array(Id()), createdAt: DateTime() };

export const UserJson = Type.Object(
  { ...common, kind: Type.Literal('USER'), email: Nullable(Type.String()), status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('DISABLED')]) },
  { title: 'User', additionalProperties: false },
);

export const ServiceAccountJson = Type.Object(
  { ...common, kind: Type.Literal('SERVICE_ACCOUNT'), active: Type.Boolean() },
  { title: 'ServiceAccount', additionalProperties: false },
);

/** GET /me: whoever authenticated (the bootstrap administrator is kind SYSTEM). */
export const PrincipalJson = Type.Object(
  {
    ...common,
    kind: Type.Union([Type.Literal('USER'), Type.Literal('SERVICE_ACCOUNT'), Type.Literal('SYSTEM')]),
    email: Type.Optional(Nullable(Type.String())),
    status: Type.Optional(Type.Union([Type.Literal('ACTIVE'), Type.Literal('DISABLED')])),
    active: Type.Optional(Type.Boolean()),
  },
  { title: 'Principal', additionalProperties: false },
);

const key = { id: Id(), principalId: Id(), name: Type.String(), expiresAt: Nullable(DateTime()), revokedAt: Nullable(DateTime()), createdAt: DateTime() };
const ApiKeyJson = Type.Object(key, { title: 'ApiKey', additionalProperties: false });
export const ApiKeyCreatedJson = Type.Object(
  { ...key, key: Type.String({ description: 'The secret, shown only in this response' }) },
  { title: 'ApiKeyCreated', additionalProperties: false },
);

export const WorkspaceJson = Type.Object({ id: Id(), name: Type.String(), createdAt: DateTime() }, { title: 'Workspace', additionalProperties: false });
export const GroupJson = Type.Object({ id: Id(), name: Type.String(), memberIds: Type.Array(Id()), createdAt: DateTime() }, { title: 'Group', additionalProperties: false });
export const TokenJson = Type.Object(
  { token: Type.String(), tokenType: Type.Literal('Bearer'), expiresAt: DateTime() },
  { title: 'Token', additionalProperties: false },
);

export const UserProjection = projectionOf(UserJson);
export const ServiceAccountProjection = projectionOf(ServiceAccountJson);
export const ApiKeyProjection = projectionOf(ApiKeyJson);
export const WorkspaceProjection = projectionOf(WorkspaceJson);
export const GroupProjection = projectionOf(GroupJson);

export const accountResponseSchemas = [UserProjection, ServiceAccountProjection, ApiKeyProjection, WorkspaceProjection, GroupProjection, UserJson, ServiceAccountJson, PrincipalJson, ApiKeyCreatedJson, WorkspaceJson, GroupJson, TokenJson];
