// What the component routes answer (DESIGN §7): components, revisions, their approvals, deployments.
import { Type } from '@sinclair/typebox';
import { DateTime, Id, Nullable, projectionOf } from '../http/index.ts';

const KIND = Type.Union([Type.Literal('lowcode'), Type.Literal('node'), Type.Literal('json-validator')]);

export const RevisionJson = Type.Object(
  {
    id: Id(),
    number: Type.Integer({ minimum: 1 }),
    digest: Type.String({ description: 'sha256 of the content' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('pending'), Type.Literal('superseded')]),
    createdAt: DateTime(),
    createdBy: Id(),
    elements: Type.Optional(Type.Array(Type.Unknown(), { description: 'lowcode' })),
    source: Type.Optional(Type.String({ description: 'node' })),
    results: Type.Optional(Type.Unknown({ description: 'node' })),
    schema: Type.Optional(Type.Unknown({ description: 'json-validator' })),
  },
  { title: 'ComponentRevision', additionalProperties: false },
);

const revisionRef = Type.Ref('#/components/schemas/ComponentRevision');

export const ComponentJson = Type.Object(
  {
    id: Id(),
    name: Type.String(),
    kind: KIND,
    description: Nullable(Type.String()),
    workspaceId: Id(),
    latestRevision: Nullable(revisionRef),
    activeRevision: Nullable(revisionRef),
    version: Type.Integer({ minimum: 0 }),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { title: 'Component', additionalProperties: false },
);

export const RevisionApprovalsJson = Type.Object(
  {
    revisionId: Id(),
    approved: Type.Boolean({ description: 'Approved to run as an administrator service account' }),
    approvedBy: Nullable(Id()),
    approvals: Type.Array(
      Type.Object({ principalId: Id(), roles: Type.Array(Type.String()), workspaceIds: Type.Array(Id()), approvedAt: DateTime() }, { additionalProperties: false }),
    ),
  },
  { title: 'RevisionApprovals', additionalProperties: false },
);

export const DeploymentJson = Type.Object(
  {
    id: Id(),
    revisionId: Id(),
    status: Type.Union([Type.Literal('building'), Type.Literal('ready'), Type.Literal('failed')]),
    error: Nullable(Type.String()),
    active: Type.Boolean(),
    createdAt: DateTime(),
    readyAt: Nullable(DateTime()),
  },
  { title: 'ComponentDeployment', additionalProperties: false },
);

export const ComponentProjection = projectionOf(ComponentJson);
export const RevisionProjection = projectionOf(RevisionJson);
export const DeploymentProjection = projectionOf(DeploymentJson);

export const componentResponseSchemas = [ComponentProjection, RevisionProjection, DeploymentProjection, ComponentJson, RevisionJson, RevisionApprovalsJson, DeploymentJson];
