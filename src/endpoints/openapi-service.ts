// Serves the generated OpenAPI documents: the active Endpoints the caller may see, with output
// schemas taken from node components' declared results where known.
import type { Database } from '../core/db/index.ts';
import { isAdmin, type Principal } from '../core/identity/index.ts';
import { notFound } from '../core/http/index.ts';
import { buildEndpointsOpenApi, type OpenApiEndpoint } from './openapi.ts';
import { activeEndpoints, type TableComponentLookup, type EndpointRecord, type EndpointStore } from '../core/definitions/index.ts';

export class EndpointOpenApi {
  constructor(
    private readonly db: Database,
    private readonly store: EndpointStore,
    private readonly components: TableComponentLookup,
    private readonly runtimeUrl: string,
  ) {}

  async all(principal: Principal): Promise<Record<string, unknown>> {
    const active = (await activeEndpoints(this.db)).filter((e) => isAdmin(principal) || principal.workspaceIds.includes(e.workspaceId));
    return this.document(active);
  }

  async one(principal: Principal, id: string): Promise<Record<string, unknown>> {
    const endpoint = await this.store.get(id);
    if (!endpoint || !(isAdmin(principal) || principal.workspaceIds.includes(endpoint.workspaceId))) throw notFound('Endpoint');
    // Disabled definitions are absent from generated OpenAPI (DESIGN §8).
    if (endpoint.status !== 'active') throw notFound('Active Endpoint');
    return this.document([endpoint]);
  }

  private async document(records: EndpointRecord[]): Promise<Record<string, unknown>> {
    const endpoints: OpenApiEndpoint[] = [];
    for (const record of records) endpoints.push({ record, outputSchema: await this.outputSchema(record), guardSchema: await this.guardSchema(record) });
    return buildEndpointsOpenApi({ runtimeUrl: this.runtimeUrl, endpoints });
  }

  /** A component guard's schema, from the json-validator revision it binds. */
  private async guardSchema(e: EndpointRecord): Promise<unknown> {
    if (e.guard?.type !== 'component') return undefined;
    const guard = e.guard;
    const bound = await this.db.read((q) => this.components.resolve(q, guard.componentId, guard.componentDigest));
    return bound?.revision?.content.schema;
  }

  /** A node component's declared result schemas: the popped one, or an object of the visible ones. */
  private async outputSchema(e: EndpointRecord): Promise<unknown> {
    if (!e.componentId || e.noResult || e.legacyResults) return undefined;
    const bound = await this.db.read((q) => this.components.resolve(q, e.componentId!, e.componentDigest));
    const declared = bound?.revision?.content.results as { name: string; visible?: boolean; schema?: unknown }[] | undefined;
    if (!declared) return undefined;
    if (e.popResult) return declared.find((r) => r.name === e.popResult)?.schema;
    const visible = declared.filter((r) => r.visible !== false && r.schema !== undefined);
    if (visible.length === 0) return undefined;
    return { type: 'object', properties: Object.fromEntries(visible.map((r) => [r.name, r.schema])) };
  }
}
