// The request body of POST /api/v1/secrets and the record answered (never the value).
import { Type, type Static } from '@sinclair/typebox';
import { Strict, Uuid } from '../core/http/index.ts';
import { compile } from '../core/http/index.ts';

const SECRET_VALUE_MAX_CHARS = 65_536;

export const SecretCreateBody = Strict(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'What the secret is, for people; not secret' }),
    value: Type.String({ minLength: 1, maxLength: SECRET_VALUE_MAX_CHARS, writeOnly: true, description: 'The secret value; encrypted at rest and never returned' }),
    workspaceId: Type.Optional(Uuid({ description: "Workspace that owns it; default the caller's first" })),
  },
  { title: 'SecretCreate', description: 'A secret for MCP server credentials' },
);
export type SecretCreateBody = Static<typeof SecretCreateBody>;

export const secretCreateValidator = compile(SecretCreateBody);

export const SecretJson = Strict(
  {
    id: Uuid(),
    name: Type.String(),
    workspaceId: Uuid(),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Secret', description: 'A stored secret; its value is never returned' },
);
