// Components, their immutable revisions and node deployment attempts as the platform reasons about them (DESIGN §7).
import type { Tables } from '../core/db/index.ts';

export const COMPONENT_KINDS = ['lowcode', 'node', 'json-validator'] as const;
export type ComponentKind = (typeof COMPONENT_KINDS)[number];

export interface LowcodeElement {
  name: string;
  /** The body of `async (api, input, results) => { … }`; its return value becomes the result `name`. */
  code: string;
  visible: boolean;
}

export interface NodeResult {
  name: string;
  visible: boolean;
  /** JSON Schema of the value, used for generated documentation. */
  schema?: Record<string, unknown>;
}

/**
 * A revision's content with its kind, defaults applied: exactly what the digest covers.
 * A node component that declares no `results` differs from one declaring none (`[]`): the
 * first produces results nobody can predict, the second promises only `default`.
 */
export type ComponentContent =
  | { kind: 'lowcode'; elements: LowcodeElement[] }
  | { kind: 'node'; source: string; results?: NodeResult[] }
  | { kind: 'json-validator'; schema: Record<string, unknown> };

export type RevisionStatus = 'active' | 'pending' | 'superseded';

export type ComponentRecord = Tables['components']['$inferSelect'];

export interface RevisionRecord {
  id: string;
  componentId: string;
  /** 1, 2, 3… per component. */
  number: number;
  /** `sha256:<hex>` of the canonical content (./digest.ts). */
  digest: string;
  status: RevisionStatus;
  content: ComponentContent;
  createdBy: string;
  createdAt: Date;
}

type DeploymentStatus = 'building' | 'ready' | 'failed';
export type DeploymentRecord = Tables['deployments']['$inferSelect'];

/** A component with the two revisions its record shows. */
export interface ComponentView {
  component: ComponentRecord;
  latest: RevisionRecord | null;
  active: RevisionRecord | null;
}
