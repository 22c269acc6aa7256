// Request bodies of components and deployments as TypeBox schemas (DESIGN §7), compiled once at load.
// Which content fields a kind takes is checked in ./rules.ts, so one body schema serves every kind.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { compile } from '../core/http/index.ts';
import { COMPONENT_KINDS } from './record.ts';

/** Element and result names: identifiers, so code can name them as `results.name`. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

const CODE_MAX_CHARS = 256 * 1024;
const SOURCE_MAX_CHARS = 1024 * 1024;
const ELEMENTS_MAX = 100;
const RESULTS_MAX = 100;

const Uuid = Type.String({ format: 'uuid' });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Description = Type.String({ maxLength: 4000 });
const Identifier = Type.String({ minLength: 1, maxLength: 100, pattern: IDENTIFIER.source });
const JsonSchemaObject = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });
const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const Kind = Type.Union(COMPONENT_KINDS.map((k) => Type.Literal(k)), { type: 'string', enum: [...COMPONENT_KINDS], description: 'Component kind' });

const Element = Type.Object(
  {
    name: Identifier,
    code: Type.String({ maxLength: CODE_MAX_CHARS, description: 'The body of `async (api, input, results) => { … }`' }),
    visible: Type.Optional(Type.Boolean({ default: true, description: 'Whether the result appears in the response' })),
  },
  { additionalProperties: false },
);

const NodeResultDecl = Type.Object(
  {
    name: Identifier,
    visible: Type.Optional(Type.Boolean({ default: true })),
    schema: Type.Optional(JsonSchemaObject('JSON Schema of the result value')),
  },
  { additionalProperties: false },
);

/** The content fields of every kind; on PATCH each replaces the stored one. */
const contentFields = {
  elements: Type.Array(Element, { minItems: 1, maxItems: ELEMENTS_MAX, description: 'lowcode: ordered elements, names unique' }),
  source: Type.String({ minLength: 1, maxLength: SOURCE_MAX_CHARS, description: 'node: a TypeScript/JavaScript module whose default export is `async (api) => …`' }),
  results: Type.Array(NodeResultDecl, { maxItems: RESULTS_MAX, description: 'node: the results the module declares, names unique' }),
  schema: JsonSchemaObject('json-validator: the JSON Schema inputs are checked against'),
};

export const ComponentCreateBody = Type.Object(
  {
    name: Name,
    kind: Kind,
    description: Type.Optional(Description),
    workspaceId: Type.Optional(Uuid),
    elements: Type.Optional(contentFields.elements),
    source: Type.Optional(contentFields.source),
    results: Type.Optional(contentFields.results),
    schema: Type.Optional(contentFields.schema),
  },
  { additionalProperties: false, title: 'ComponentCreate' },
);

export const ComponentUpdateBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(nullable(Description)),
    elements: Type.Optional(contentFields.elements),
    source: Type.Optional(contentFields.source),
    /** `null` withdraws the declaration. */
    results: Type.Optional(nullable(contentFields.results)),
    schema: Type.Optional(contentFields.schema),
    version: Type.Optional(Type.Integer({ minimum: 0, description: 'Optimistic-locking version' })),
  },
  { additionalProperties: false, title: 'ComponentUpdate' },
);

export const DeploymentCreateBody = Type.Object(
  { revisionId: Type.String({ format: 'uuid', description: 'The node revision to build' }) },
  { additionalProperties: false, title: 'DeploymentCreate' },
);

export type ComponentCreateBody = Static<typeof ComponentCreateBody>;
export type ComponentUpdateBody = Static<typeof ComponentUpdateBody>;
export type DeploymentCreateBody = Static<typeof DeploymentCreateBody>;

export const validators = {
  create: compile(ComponentCreateBody),
  update: compile(ComponentUpdateBody),
  deploy: compile(DeploymentCreateBody),
};
