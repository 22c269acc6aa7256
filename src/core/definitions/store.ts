// Endpoint rows: the definition as a record, compare-and-set updates and status changes.
import { and, eq, or } from 'drizzle-orm';
import type { Database, Orm } from '../db/index.ts';
import type { ContractStatus, EndpointDefinition, EndpointRecord, HttpMethod } from './schema.ts';
import { endpointShape } from './path.ts';
import { isUuid } from '../lib/index.ts';

type Row = Database['t']['endpoints']['$inferSelect'];

export function toRecord(row: Row): EndpointRecord {
  const definition = row.definition as unknown as EndpointDefinition;
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    name: row.name,
    description: row.description,
    method: row.method as HttpMethod,
    path: row.path,
    status: row.status,
    componentId: row.componentId,
    ...definition,
    contractStatus: (row.contractStatus as ContractStatus | null) ?? null,
    version: row.version,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Splits a record into its columns and the stored definition document. */
function toRow(record: EndpointRecord, createdBy: string): Row {
  const { id, workspaceId, name, description, method, path, status, componentId, contractStatus, version, createdAt, updatedAt, ...definition } = record;
  return {
    id, workspaceId, name, description, method, path, status, componentId, version, createdAt, updatedAt, createdBy,
    shape: endpointShape(method, path),
    guardComponentId: definition.guard?.type === 'component' ? definition.guard.componentId : null,
    definition: JSON.parse(JSON.stringify(definition)) as Record<string, unknown>,
    contractStatus: (contractStatus as unknown as Record<string, unknown> | null) ?? null,
  };
}

export class EndpointStore {
  constructor(private readonly db: Database) {}

  async get(id: string, q?: Orm): Promise<EndpointRecord | null> {
    if (!isUuid(id)) return null;
    const { endpoints } = this.db.t;
    const run = (o: Orm) => o.select().from(endpoints).where(eq(endpoints.id, id));
    const rows = q ? await run(q) : await this.db.read(run);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async insert(q: Orm, record: EndpointRecord, createdBy: string): Promise<void> {
    await q.insert(this.db.t.endpoints).values(toRow(record, createdBy));
  }

  /**
   * Writes `next` only if the stored version is still `expectedVersion`; null when another write won.
   * Every change of a definition goes through here with a new version (and updatedAt): the index
   * build re-reads a definition only when those change (index-snapshot.ts). The one write that
   * does not is the contract status's re-validation, which the index does not carry.
   */
  async compareAndSet(q: Orm, expectedVersion: number, next: EndpointRecord): Promise<EndpointRecord | null> {
    const { endpoints } = this.db.t;
    const { createdBy: _unused, id: _id, createdAt: _c, ...row } = toRow(next, '');
    const rows = await q
      .update(endpoints)
      .set(row)
      .where(and(eq(endpoints.id, next.id), eq(endpoints.version, expectedVersion)))
      .returning();
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async delete(q: Orm, id: string): Promise<void> {
    await q.delete(this.db.t.endpoints).where(eq(this.db.t.endpoints.id, id));
  }

  /** The active definition holding a route shape, if any. */
  async activeWithShape(q: Orm, shape: string): Promise<EndpointRecord | null> {
    const { endpoints } = this.db.t;
    const rows = await q.select().from(endpoints).where(and(eq(endpoints.shape, shape), eq(endpoints.status, 'active')));
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async listActive(q?: Orm): Promise<EndpointRecord[]> {
    const { endpoints } = this.db.t;
    const run = (o: Orm) => o.select().from(endpoints).where(eq(endpoints.status, 'active')).orderBy(endpoints.createdAt);
    return (q ? await run(q) : await this.db.read(run)).map(toRecord);
  }

  /** Endpoints (any status) bound to a component, as executor or as guard. */
  async boundTo(q: Orm, componentId: string): Promise<EndpointRecord[]> {
    const { endpoints } = this.db.t;
    const rows = await q.select().from(endpoints).where(or(eq(endpoints.componentId, componentId), eq(endpoints.guardComponentId, componentId)));
    return rows.map(toRecord);
  }
}
