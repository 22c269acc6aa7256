// Request bodies of the minimal accounts surface (DESIGN §2).
import { Type, type Static } from '@sinclair/typebox';
import { ROLES } from '../core/identity/index.ts';
import { compile } from '../core/http/index.ts';

const Role = Type.Union(ROLES.map((r) => Type.Literal(r)), { description: 'Platform role' });
const Uuid = Type.String({ format: 'uuid' });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const WorkspaceIds = Type.Array(Uuid, { maxItems: 100, uniqueItems: true, description: 'Workspaces, first = default; omitted: the `default` workspace' });

export const UserCreate = Type.Object(
  {
    name: Name,
    email: Type.String({ minLength: 3, maxLength: 320, pattern: '^[^@\\s]+@[^@\\s]+$' }),
    roles: Type.Array(Role, { maxItems: ROLES.length, uniqueItems: true }),
    platformAccess: Type.Boolean(),
    workspaceIds: Type.Optional(WorkspaceIds),
  },
  { additionalProperties: false, title: 'UserCreate' },
);

export const UserUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    roles: Type.Optional(Type.Array(Role, { maxItems: ROLES.length, uniqueItems: true })),
    platformAccess: Type.Optional(Type.Boolean()),
    status: Type.Optional(Type.Union([Type.Literal('ACTIVE'), Type.Literal('DISABLED')])),
    workspaceIds: Type.Optional(WorkspaceIds),
  },
  { additionalProperties: false, title: 'UserUpdate' },
);

export const ServiceAccountCreate = Type.Object(
  {
    name: Name,
    roles: Type.Array(Role, { maxItems: ROLES.length, uniqueItems: true }),
    platformAccess: Type.Boolean(),
    active: Type.Optional(Type.Boolean({ default: true })),
    workspaceIds: Type.Optional(WorkspaceIds),
  },
  { additionalProperties: false, title: 'ServiceAccountCreate' },
);

export const ServiceAccountUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    roles: Type.Optional(Type.Array(Role, { maxItems: ROLES.length, uniqueItems: true })),
    platformAccess: Type.Optional(Type.Boolean()),
    active: Type.Optional(Type.Boolean()),
    workspaceIds: Type.Optional(WorkspaceIds),
  },
  { additionalProperties: false, title: 'ServiceAccountUpdate' },
);

export const ApiKeyCreate = Type.Object(
  {
    principalId: Type.Optional(Uuid),
    name: Name,
    expiresAt: Type.Optional(Type.Union([
      Type.String({ format: 'date-or-date-time', maxLength: 64, description: 'ISO 8601 date-time, or a date (midnight UTC)' }),
      Type.Null(),
    ], { description: 'When the key stops working; omitted or null: never expires (as the key record shows it)' })),
  },
  { additionalProperties: false, title: 'ApiKeyCreate' },
);

export const WorkspaceCreate = Type.Object({ name: Name }, { additionalProperties: false, title: 'WorkspaceCreate' });

export const GroupCreate = Type.Object(
  { name: Name, memberIds: Type.Array(Uuid, { maxItems: 1000, uniqueItems: true }) },
  { additionalProperties: false, title: 'GroupCreate' },
);

export const TokenRequest = Type.Object(
  { ttlSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 86400, default: 3600 })) },
  { additionalProperties: false, title: 'TokenRequest' },
);

export const validators = {
  userCreate: compile(UserCreate),
  userUpdate: compile(UserUpdate),
  serviceAccountCreate: compile(ServiceAccountCreate),
  serviceAccountUpdate: compile(ServiceAccountUpdate),
  apiKeyCreate: compile(ApiKeyCreate),
  workspaceCreate: compile(WorkspaceCreate),
  groupCreate: compile(GroupCreate),
  tokenRequest: compile(TokenRequest),
};

type UserCreateBody = Static<typeof UserCreate>;
