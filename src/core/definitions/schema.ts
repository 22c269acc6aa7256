// The Endpoint definition (DESIGN §8) as TypeBox schemas: create body, PATCH body, settings.
import { Type, type Static, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';
import { compile } from '../http/index.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof METHODS)[number];

/** A union of string literals that also carries `enum`, so docs and error messages list the values. */
const literalUnion = <T extends readonly string[]>(values: T, description: string) =>
  Type.Union(values.map((v) => Type.Literal(v)), { description, enum: [...values] }) as unknown as TUnion<{ [K in keyof T]: TLiteral<T[K]> } & TSchema[]>;

const Uuid = Type.String({ format: 'uuid' });
// Any other string is simply a digest no revision has: 422 UNKNOWN_DIGEST (DESIGN §8), not a schema error.
const Digest = Type.String({ minLength: 1, maxLength: 200, description: 'A revision content digest, `sha256:<64 hex>`' });
const JsonObject = Type.Record(Type.String(), Type.Unknown());

const Method = literalUnion(METHODS, 'HTTP method');
/** Syntax only; the full path rules (named segments, duplicates) are checked in ./path.ts. */
const EndpointPath = Type.String({ minLength: 1, maxLength: 2048, pattern: '^/', description: '`/`-separated static segments and `:name` segments, e.g. `/orders/:orderId`' });

const InlineGuard = Type.Object(
  { type: Type.Literal('inline'), schema: Type.Unknown({ description: 'A JSON Schema for the body (or the query for GET)' }) },
  { additionalProperties: false },
);
const ComponentGuard = Type.Object(
  { type: Type.Literal('component'), componentId: Uuid, componentDigest: Type.Optional(Digest) },
  { additionalProperties: false },
);
const Guard = Type.Union([InlineGuard, ComponentGuard], { description: 'Input validation: an inline JSON Schema or a json-validator component' });

const ValidationFailure = Type.Object(
  { status: Type.Integer({ minimum: 400, maximum: 499 }), body: Type.Unknown() },
  { additionalProperties: false, description: 'Status and body answered when input validation fails' },
);

const StaticResponse = Type.Object(
  {
    status: Type.Integer({ minimum: 200, maximum: 599 }),
    headers: Type.Optional(Type.Record(Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$", maxLength: 100 }), Type.String({ maxLength: 4096 }), { maxProperties: 50 })),
    body: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false, description: 'The configured response when no component is attached' },
);

const ExecutionModes = ['CALLER', 'SERVICE_ACCOUNT'] as const;
const CurrentUserModes = ['BUSINESS_USER', 'EXECUTION_ACCOUNT'] as const;

export const ExecutionPolicy = Type.Object(
  {
    mode: literalUnion(ExecutionModes, 'Who performs the operations inside the component'),
    serviceAccountId: Type.Optional(Uuid),
    currentUser: Type.Optional(literalUnion(CurrentUserModes, 'What api.currentUser() returns')),
  },
  { additionalProperties: false },
);

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Fields shared by create and PATCH; on PATCH each is optional and `null` clears an optional one. */
const definitionFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.String({ maxLength: 4000 }),
  method: Method,
  path: EndpointPath,
  guard: Guard,
  validationFailure: ValidationFailure,
  successStatus: Type.Integer({ minimum: 200, maximum: 299, default: 200 }),
  componentId: Uuid,
  componentDigest: Digest,
  popResult: Type.String({ minLength: 1, maxLength: 200 }),
  noResult: Type.Boolean(),
  legacyResults: Type.Boolean(),
  staticResponse: StaticResponse,
  executionPolicy: ExecutionPolicy,
  inputs: JsonObject,
  timeoutMs: Type.Integer({ minimum: 1, maximum: 60000, default: 10000 }),
};

export const EndpointCreateBody = Type.Object(
  {
    name: definitionFields.name,
    method: definitionFields.method,
    path: definitionFields.path,
    workspaceId: Type.Optional(Uuid),
    description: Type.Optional(definitionFields.description),
    guard: Type.Optional(definitionFields.guard),
    validationFailure: Type.Optional(definitionFields.validationFailure),
    successStatus: Type.Optional(definitionFields.successStatus),
    componentId: Type.Optional(definitionFields.componentId),
    componentDigest: Type.Optional(definitionFields.componentDigest),
    popResult: Type.Optional(definitionFields.popResult),
    noResult: Type.Optional(definitionFields.noResult),
    legacyResults: Type.Optional(definitionFields.legacyResults),
    staticResponse: Type.Optional(definitionFields.staticResponse),
    executionPolicy: Type.Optional(definitionFields.executionPolicy),
    inputs: Type.Optional(definitionFields.inputs),
    timeoutMs: Type.Optional(definitionFields.timeoutMs),
  },
  { additionalProperties: false, title: 'EndpointCreate' },
);

export const EndpointUpdateBody = Type.Object(
  {
    name: Type.Optional(definitionFields.name),
    method: Type.Optional(definitionFields.method),
    path: Type.Optional(definitionFields.path),
    description: Type.Optional(nullable(definitionFields.description)),
    guard: Type.Optional(nullable(definitionFields.guard)),
    validationFailure: Type.Optional(nullable(definitionFields.validationFailure)),
    successStatus: Type.Optional(definitionFields.successStatus),
    componentId: Type.Optional(nullable(definitionFields.componentId)),
    componentDigest: Type.Optional(nullable(definitionFields.componentDigest)),
    popResult: Type.Optional(nullable(definitionFields.popResult)),
    noResult: Type.Optional(definitionFields.noResult),
    legacyResults: Type.Optional(definitionFields.legacyResults),
    staticResponse: Type.Optional(nullable(definitionFields.staticResponse)),
    executionPolicy: Type.Optional(nullable(definitionFields.executionPolicy)),
    inputs: Type.Optional(nullable(definitionFields.inputs)),
    timeoutMs: Type.Optional(definitionFields.timeoutMs),
    version: Type.Optional(Type.Integer({ minimum: 0, description: 'Optimistic-locking version' })),
  },
  { additionalProperties: false, title: 'EndpointUpdate' },
);

export const EndpointSettingsBody = Type.Object(
  {
    executionPolicy: Type.Object(
      { mode: literalUnion(ExecutionModes, 'Default execution identity'), serviceAccountId: Type.Optional(Uuid) },
      { additionalProperties: false },
    ),
    currentUser: Type.Optional(literalUnion(CurrentUserModes, 'Default for api.currentUser()')),
    // What GET returns may be sent back as is: `saved` is read-only and ignored (a PUT saves).
    saved: Type.Optional(Type.Boolean({ description: 'Read-only; ignored' })),
  },
  { additionalProperties: false, title: 'EndpointSettingsUpdate' },
);

export type EndpointCreateBody = Static<typeof EndpointCreateBody>;
export type EndpointUpdateBody = Static<typeof EndpointUpdateBody>;
export type EndpointSettingsBody = Static<typeof EndpointSettingsBody>;
type Guard = Static<typeof Guard>;
type StaticResponse = Static<typeof StaticResponse>;
export type ExecutionPolicy = Static<typeof ExecutionPolicy>;

/** The stored definition: everything but identity, routing and bookkeeping columns. */
export interface EndpointDefinition {
  guard?: Guard;
  validationFailure?: { status: number; body: unknown };
  successStatus: number;
  componentDigest?: string;
  popResult?: string;
  noResult?: boolean;
  legacyResults?: boolean;
  staticResponse?: StaticResponse;
  executionPolicy?: ExecutionPolicy;
  inputs?: Record<string, unknown>;
  timeoutMs: number;
}

/** The Endpoint as the API returns it. */
export interface EndpointRecord extends EndpointDefinition {
  id: string;
  workspaceId: string;
  name: string;
  description: string | null;
  method: HttpMethod;
  path: string;
  status: 'active' | 'disabled';
  componentId: string | null;
  contractStatus: ContractStatus | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface ContractIssue {
  code: string;
  message: string;
  pointer?: string;
}

export interface ContractStatus {
  valid: boolean;
  errors: ContractIssue[];
  warnings: ContractIssue[];
  checkedAt: string;
}

export const validators = {
  create: compile(EndpointCreateBody),
  update: compile(EndpointUpdateBody),
  settings: compile(EndpointSettingsBody),
};
