// The JSON shapes of components, revisions and deployments (DESIGN §7): timestamps as ISO strings.
import type { Principal } from '../core/identity/index.ts';
import { administratorApproval, type Approval } from '../core/definitions/index.ts';
import type { ComponentContent, ComponentView, DeploymentRecord, RevisionRecord } from './record.ts';

/** The content fields of a revision as the API shows them (the kind is the component's). */
function contentFields(content: ComponentContent): Record<string, unknown> {
  switch (content.kind) {
    case 'lowcode':
      return { elements: content.elements };
    case 'node':
      return content.results === undefined ? { source: content.source } : { source: content.source, results: content.results };
    case 'json-validator':
      return { schema: content.schema };
  }
}

export const revisionJson = (r: RevisionRecord) => ({
  id: r.id,
  number: r.number,
  digest: r.digest,
  status: r.status,
  createdAt: r.createdAt.toISOString(),
  createdBy: r.createdBy,
  ...contentFields(r.content),
});

/**
 * A revision's approvals (kept out of the revision shape DESIGN §7 fixes): `approved` and
 * `approvedBy` say whether (and who first) approved it to run as an administrator service
 * account; `approvals` lists every approval with the rights it counts for, naming only the
 * workspaces the reader belongs to (all for an INSTANCE_ADMIN): the others' ids are not theirs to see.
 */
export const approvalJson = (revisionId: string, approvals: readonly Approval[], reader: Pick<Principal, 'roles' | 'workspaceIds'>) => {
  const seen = (ids: readonly string[]) => (reader.roles.includes('INSTANCE_ADMIN') ? ids : ids.filter((id) => reader.workspaceIds.includes(id)));
  const administrator = administratorApproval(approvals);
  return {
    revisionId,
    approved: administrator !== null,
    approvedBy: administrator?.principalId ?? null,
    approvals: approvals.map((a) => ({ principalId: a.principalId, roles: a.roles, workspaceIds: seen(a.workspaceIds), approvedAt: a.approvedAt.toISOString() })),
  };
};

export const componentJson = ({ component: c, latest, active }: ComponentView) => ({
  id: c.id,
  name: c.name,
  kind: c.kind,
  description: c.description,
  workspaceId: c.workspaceId,
  latestRevision: latest ? revisionJson(latest) : null,
  activeRevision: active ? revisionJson(active) : null,
  version: c.version,
  createdAt: c.createdAt.toISOString(),
  updatedAt: c.updatedAt.toISOString(),
});

export const deploymentJson = (d: DeploymentRecord) => ({
  id: d.id,
  revisionId: d.revisionId,
  status: d.status,
  error: d.error,
  active: d.active,
  createdAt: d.createdAt.toISOString(),
  readyAt: d.readyAt ? d.readyAt.toISOString() : null,
});

export const etagOf = (version: number) => `"${version}"`;
