// What depends on a component and so forbids deleting it (DESIGN §7): Endpoints bound to it, active
// or disabled (a disabled one could not be activated again)
// (`componentId`, or a component guard's `definition.guard.componentId`) and agent plugins
// (`config.plugins[].componentId`, `policy.plugins[].componentId`). JSON columns are narrowed with
// a LIKE on their text (a UUID has no LIKE wildcards), then matched here, in either case.
import { and, eq, like, or, sql, type AnyColumn } from 'drizzle-orm';
import type { Database, Orm } from '../core/db/index.ts';

export interface Dependent {
  type: 'endpoint' | 'agent';
  id: string;
  name: string;
  /** Where the reference is, e.g. `/componentId`, `/guard/componentId`, `/config/plugins/0/componentId`. */
  pointer: string;
}

type JsonRecord = Record<string, unknown>;
const isRecord = (v: unknown): v is JsonRecord => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Only what lives in the component's own workspace: a reference from another workspace never
 * resolves (such an Endpoint cannot be activated), so it holds nothing up, and naming it would
 * tell the component's admin about a resource they cannot see.
 */
export async function findDependents(db: Database, q: Orm, componentId: string, workspaceId: string): Promise<Dependent[]> {
  return [...(await endpointDependents(db, q, componentId, workspaceId)), ...(await agentDependents(db, q, componentId, workspaceId))];
}

/**
 * `LOWER(CAST(column AS TEXT)) LIKE '%id%'`: the same SQL on SQLite (TEXT JSON) and Postgres
 * (jsonb). Lower-cased: an agent plugin's `componentId` is stored as sent, and a UUID names the
 * same component in either case (`id` is stored lower-case).
 */
const mentions = (column: AnyColumn, id: string) => like(sql`LOWER(CAST(${column} AS TEXT))`, `%${id.toLowerCase()}%`);
const sameId = (value: unknown, id: string): boolean => typeof value === 'string' && value.toLowerCase() === id.toLowerCase();

async function endpointDependents(db: Database, q: Orm, componentId: string, workspaceId: string): Promise<Dependent[]> {
  const { endpoints: e } = db.t;
  const rows = await q
    .select({ id: e.id, name: e.name, componentId: e.componentId, definition: e.definition })
    .from(e)
    .where(and(eq(e.workspaceId, workspaceId), or(eq(e.componentId, componentId), mentions(e.definition, componentId))));
  const out: Dependent[] = [];
  for (const row of rows) {
    if (row.componentId === componentId) out.push({ type: 'endpoint', id: row.id, name: row.name, pointer: '/componentId' });
    const guard = isRecord(row.definition) ? row.definition.guard : undefined;
    if (isRecord(guard) && sameId(guard.componentId, componentId)) out.push({ type: 'endpoint', id: row.id, name: row.name, pointer: '/guard/componentId' });
  }
  return out;
}

async function agentDependents(db: Database, q: Orm, componentId: string, workspaceId: string): Promise<Dependent[]> {
  const { agents: a } = db.t;
  const rows = await q
    .select({ id: a.id, name: a.name, config: a.config, policy: a.policy })
    .from(a)
    .where(and(eq(a.workspaceId, workspaceId), or(mentions(a.config, componentId), mentions(a.policy, componentId))));
  const out: Dependent[] = [];
  for (const row of rows) {
    for (const [block, value] of [['config', row.config], ['policy', row.policy]] as const) {
      const plugins = isRecord(value) ? value.plugins : undefined;
      if (!Array.isArray(plugins)) continue;
      plugins.forEach((plugin: unknown, i) => {
        if (isRecord(plugin) && sameId(plugin.componentId, componentId)) {
          out.push({ type: 'agent', id: row.id, name: row.name, pointer: `/${block}/plugins/${i}/componentId` });
        }
      });
    }
  }
  return out;
}
