// Compiles a definition snapshot into the runtime index: one router build, one guard compile per
// Endpoint, code revisions in the executor's shape. Never runs per request.
import { compileRouter, routeShape, ROUTE_METHODS } from '../router/index.ts';
import { GuardCache, type CompiledGuard } from '../guard/index.ts';
import type { CodeRevision } from '../executor/contract/index.ts';
import { prepareStatic, type PreparedStatic } from './static-response.ts';
import type { IndexSnapshot, SnapshotEndpoint } from '../../src/core/definitions/index.ts';
import type { CompiledEndpoint, RuntimeIndex } from './compiled.ts';

export interface CompileReport {
  index: RuntimeIndex;
  /** Endpoints left out because something in them no longer compiles (logged, never fatal). */
  skipped: { id: string; reason: string }[];
}

/**
 * @param guards the guards of earlier builds, reused by schema text (IndexHolder keeps one across
 * builds); a fresh one compiles everything
 */
export function compileIndex(snapshot: IndexSnapshot, guards = new GuardCache()): CompileReport {
  const skipped: CompileReport['skipped'] = [];
  const routes: { method: string; path: string; value: CompiledEndpoint }[] = [];
  const shapes = new Set<string>();
  for (const entry of snapshot.endpoints) {
    const { definition } = entry;
    // The control plane validates paths with the router's rules; this guards against older rows,
    // so one bad definition can never stop the whole index from building.
    const shape = routeShape(definition.path);
    if (shape === null || !(ROUTE_METHODS as readonly string[]).includes(definition.method) || shapes.has(`${definition.method} ${shape}`)) {
      skipped.push({ id: definition.id, reason: 'path or method does not compile, or duplicates another route' });
      continue;
    }
    shapes.add(`${definition.method} ${shape}`);
    let guard: CompiledEndpoint['guard'] = null;
    if (definition.guard) {
      const compiled = entry.guardSchema === null ? null : guards.compile(entry.guardSchema);
      if (!compiled || !compiled.ok) {
        skipped.push({ id: definition.id, reason: 'guard schema does not compile' });
        continue;
      }
      guard = compiled.guard;
    }
    const code = codeOf(entry);
    const resultSchemas = resultSchemasOf(guards, entry);
    routes.push({
      method: definition.method,
      path: definition.path,
      value: {
        id: definition.id,
        definition,
        component: entry.component,
        code,
        runAs: runAsOf(guards, entry, code, resultSchemas),
        revisionDigest: entry.revision?.digest ?? null,
        guard,
        resultSchemas,
        prepared: definition.staticResponse ? preparedOf(definition.staticResponse) : null,
        hasBody: definition.method !== 'GET',
        results: definition.noResult ? 'none' : definition.popResult ? { only: definition.popResult } : undefined,
        guardsBody: definition.method !== 'GET' && definition.method !== 'DELETE',
      },
    });
  }
  guards.nextGeneration();
  return {
    index: { version: snapshot.version, builtAt: snapshot.builtAt, settings: snapshot.settings, router: compileRouter(routes), endpoints: routes.length },
    skipped,
  };
}

/**
 * Static responses as served, made once per definition object: the control plane hands an
 * unchanged definition to the next build as the same object (src/core/definitions/index-snapshot.ts),
 * and serializing a large body again on every change anywhere held the serving thread.
 */
const preparedStatics = new WeakMap<object, PreparedStatic>();
function preparedOf(s: NonNullable<SnapshotEndpoint['definition']['staticResponse']>): PreparedStatic {
  let prepared = preparedStatics.get(s);
  if (!prepared) preparedStatics.set(s, (prepared = prepareStatic(s)));
  return prepared;
}

/** What runs as the Endpoint's service account, and the account's rights it was judged by. */
function runAsOf(guards: GuardCache, entry: SnapshotEndpoint, code: CodeRevision | null, resultSchemas: CompiledEndpoint['resultSchemas']): CompiledEndpoint['runAs'] {
  const { runAs } = entry;
  if (!runAs) return runAs;
  const rights = { roles: runAs.roles, workspaceIds: runAs.workspaceIds };
  if (runAs.revision === 'same') return { accountId: runAs.accountId, rights, code, resultSchemas };
  if (runAs.revision === null) return { accountId: runAs.accountId, rights, code: null, resultSchemas: null };
  return { accountId: runAs.accountId, rights, code: codeOf(entry, runAs.revision), resultSchemas: resultSchemasOf(guards, entry, runAs.revision) };
}

function codeOf(entry: SnapshotEndpoint, revision = entry.revision): CodeRevision | null {
  const { component } = entry;
  if (!component || !revision) return null;
  // Code of one workspace shares executor hosts only with code of the same workspace (whose
  // component admins could change it anyway); without a recorded workspace, the component alone.
  const tenant = component.workspaceId ?? `component:${component.id}`;
  if (component.kind === 'lowcode') return { id: revision.id, tenant, kind: 'lowcode', elements: revision.elements ?? [] };
  if (component.kind === 'node') {
    const hidden = (revision.results ?? []).filter((r) => r.visible === false).map((r) => r.name);
    return { id: revision.id, tenant, kind: 'node', source: revision.source ?? '', ...(hidden.length > 0 ? { hidden } : {}) };
  }
  return null;
}

/** Compiled schemas of the node results the bound revision declares with one (those that compile). */
function resultSchemasOf(guards: GuardCache, entry: SnapshotEndpoint, revision = entry.revision): ReadonlyMap<string, CompiledGuard> | null {
  const declared = entry.component?.kind === 'node' ? revision?.results : undefined;
  let out: Map<string, CompiledGuard> | null = null;
  for (const result of declared ?? []) {
    if (result.schema === undefined) continue;
    const compiled = guards.compile(result.schema);
    if (compiled.ok) (out ??= new Map()).set(result.name, compiled.guard);
  }
  return out;
}
