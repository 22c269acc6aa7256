// Builds the definition index the runtime serves (DESIGN §9): every active Endpoint with its
// component revision and guard schema resolved, the instance settings, and the index version,
// all read in one transaction so they agree. The snapshot is plain JSON (it travels through Redis).
import { eq, inArray } from 'drizzle-orm';
import type { Database, Orm } from '../db/index.ts';
import type { ComponentKind } from './component-lookup.ts';
import type { BoundRevision } from './component-lookup.ts';
import { BindingsReader, type Binding } from './bindings.ts';
import { judgeRunAs, type RunAsRequest } from './run-as.ts';
import { executionAccountIdOf, executionModeOf, readSettings, type EndpointSettings } from './settings.ts';
import type { EndpointRecord } from './schema.ts';
import { toRecord } from './store.ts';

interface SnapshotRevision {
  id: string;
  number: number;
  digest: string;
  /** lowcode: the ordered elements. */
  elements?: { name: string; code: string; visible: boolean }[];
  /** node: the transpiled module. */
  source?: string;
  /** node: declared results. */
  results?: { name: string; visible?: boolean; schema?: unknown }[];
}

export interface SnapshotEndpoint {
  definition: Omit<EndpointRecord, 'createdAt' | 'updatedAt' | 'contractStatus'>;
  /** `workspaceId` is absent in snapshots cached by older versions. */
  component: { id: string; kind: ComponentKind; name: string; workspaceId?: string } | null;
  /** The revision this binding runs; null for a node component without a selected ready revision. */
  revision: SnapshotRevision | null;
  /**
   * Present when the Endpoint executes as a service account (its policy or the instance's) and
   * has a component: what runs as that account (spec, Authentication rule 9, extended to every
   * account). Null when the account is missing: nothing runs.
   */
  runAs?: SnapshotRunAs | null;
  /** The inline guard schema, or the json-validator revision's schema. */
  guardSchema: unknown;
}

interface SnapshotRunAs {
  accountId: string;
  /**
   * The account's roles and workspaces when the snapshot was built, which `revision` was judged
   * by: the runtime refuses (403) an account that holds more when it invokes.
   */
  roles: string[];
  workspaceIds: string[];
  /** `same` when that is the Endpoint's `revision`; null when no revision is approved for the account. */
  revision: SnapshotRevision | 'same' | null;
}

/**
 * The snapshot layout. A runtime takes a snapshot cached in Redis only in this format: one an
 * older control plane wrote (without `runAs`) would let a service account run code not approved
 * for it, so it is rebuilt from the database instead.
 */
export const SNAPSHOT_FORMAT = 3;

export interface IndexSnapshot {
  format?: number;
  version: number;
  builtAt: string;
  settings: EndpointSettings;
  endpoints: SnapshotEndpoint[];
}

/** An active definition as the last snapshot built on a database decoded it (contractStatus null: not kept). */
interface Decoded {
  version: number;
  updatedAt: number;
  record: EndpointRecord;
  definition: SnapshotEndpoint['definition'];
}

/**
 * The active definitions of the last snapshot built on each database, by id. Every change
 * rebuilds the whole snapshot; a definition whose version (bumped by every write of it) is the
 * same is not read and decoded again, and keeps its object, so that the runtime's per-definition
 * work (a static response serialized, template inputs) is reused too. A few Endpoints with
 * megabytes of static body made every activation anywhere hold the serving thread for ~0.5 s.
 */
const decodedBy = new WeakMap<Database, Map<string, Decoded>>();

/** Reads per statement when fetching definitions by id: below both databases' parameter limits. */
const FETCH_CHUNK = 500;

/** The active definitions in creation order, read and decoded only where they changed. */
async function activeDefinitions(db: Database, q: Orm): Promise<Decoded[]> {
  const { endpoints } = db.t;
  const stamps = await q
    .select({ id: endpoints.id, version: endpoints.version, updatedAt: endpoints.updatedAt })
    .from(endpoints)
    .where(eq(endpoints.status, 'active'))
    .orderBy(endpoints.createdAt);
  const previous = decodedBy.get(db) ?? new Map<string, Decoded>();
  const next = new Map<string, Decoded>();
  const changed: string[] = [];
  for (const s of stamps) {
    const known = previous.get(s.id);
    if (known && known.version === s.version && known.updatedAt === s.updatedAt.getTime()) next.set(s.id, known);
    else changed.push(s.id);
  }
  for (let i = 0; i < changed.length; i += FETCH_CHUNK) {
    const rows = await q.select().from(endpoints).where(inArray(endpoints.id, changed.slice(i, i + FETCH_CHUNK)));
    for (const row of rows) {
      // The contract status is re-validated without a version bump (EndpointStore): not kept here.
      const record: EndpointRecord = { ...toRecord(row), contractStatus: null };
      // The definition shares the record's documents: both are read-only from here on.
      const { createdAt: _c, updatedAt: _u, contractStatus: _s, ...definition } = record;
      next.set(record.id, { version: record.version, updatedAt: record.updatedAt.getTime(), record, definition });
    }
  }
  decodedBy.set(db, next);
  // A definition deleted between the two reads (Postgres, read committed) is left out.
  return stamps.map((s) => next.get(s.id)).filter((d): d is Decoded => d !== undefined);
}

/** The active definitions as the index has them (unchanged ones are not read and decoded again; contractStatus null). */
export async function activeEndpoints(db: Database): Promise<EndpointRecord[]> {
  return (await db.read((q) => activeDefinitions(db, q))).map((d) => d.record);
}

export async function buildIndexSnapshot(db: Database): Promise<IndexSnapshot> {
  // A transaction gives Postgres one consistent view; on SQLite it serialises with writers.
  return db.write(async (q) => {
    const [state] = await q.select().from(db.t.indexState).where(eq(db.t.indexState.id, 1));
    const settings = await readSettings(db, q);
    const decoded = await activeDefinitions(db, q);
    const records = decoded.map((d) => d.record);
    const bindings: Binding[] = [];
    const runAsRequests: RunAsRequest[] = [];
    for (const record of records) {
      if (record.componentId) bindings.push({ componentId: record.componentId, digest: record.componentDigest });
      if (record.guard?.type === 'component') bindings.push({ componentId: record.guard.componentId, digest: record.guard.componentDigest });
      if (record.componentId && executionModeOf(record.executionPolicy, settings) === 'SERVICE_ACCOUNT') {
        runAsRequests.push({ endpointId: record.id, binding: { componentId: record.componentId, digest: record.componentDigest }, accountId: executionAccountIdOf(record.executionPolicy, settings) });
      }
    }
    const read = await BindingsReader.load(db, q, bindings, runAsRequests.map((r) => r.binding.componentId));
    const judged = await judgeRunAs(db, q, read, runAsRequests);

    const endpoints: SnapshotEndpoint[] = [];
    for (const { record, definition } of decoded) {
      let component: SnapshotEndpoint['component'] = null;
      let revision: SnapshotRevision | null = null;
      let runAs: SnapshotEndpoint['runAs'];
      const bound = record.componentId ? read.resolve({ componentId: record.componentId, digest: record.componentDigest }) : null;
      if (bound) {
        component = { id: bound.component.id, kind: bound.component.kind, name: bound.component.name, workspaceId: bound.component.workspaceId };
        if (bound.revision) revision = snapshotRevision(bound.component.kind, bound.revision);
      }
      if (judged.has(record.id)) {
        const judgement = judged.get(record.id) ?? null;
        const other = judgement?.revision;
        runAs = judgement && { ...judgement, revision: bound && other && other !== 'same' ? snapshotRevision(bound.component.kind, other) : (other === 'same' ? 'same' : null) };
      }
      let guardSchema: unknown = null;
      if (record.guard?.type === 'inline') guardSchema = record.guard.schema;
      else if (record.guard?.type === 'component') {
        guardSchema = read.resolve({ componentId: record.guard.componentId, digest: record.guard.componentDigest })?.revision?.content.schema ?? null;
      }
      endpoints.push({ definition, component, revision, ...(runAs !== undefined ? { runAs } : {}), guardSchema });
    }
    return { format: SNAPSHOT_FORMAT, version: state?.version ?? 0, builtAt: new Date().toISOString(), settings, endpoints };
  });
}

/** A bound revision in the executor's terms: lowcode elements, or the node module and its declared results. */
function snapshotRevision(kind: ComponentKind, bound: BoundRevision): SnapshotRevision {
  const content = bound.content;
  const revision: SnapshotRevision = { id: bound.id, number: bound.number, digest: bound.digest };
  if (kind === 'lowcode') {
    revision.elements = ((content.elements ?? []) as { name: string; code: string; visible?: boolean }[]).map((e) => ({ name: e.name, code: e.code, visible: e.visible !== false }));
  } else if (kind === 'node') {
    revision.source = typeof content.source === 'string' ? content.source : '';
    if (Array.isArray(content.results)) revision.results = content.results as SnapshotRevision['results'];
  }
  return revision;
}
