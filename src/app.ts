// The control-plane Elysia application: conventions, docs, health and every route family.
import { Elysia } from 'elysia';
import { swagger } from '@elysiajs/swagger';
import { httpConventions, type HttpLogger } from './http/index.ts';
import { allowedMethodsOf, type AllowedMethods } from './http/index.ts';
import { documentComponents } from './http/index.ts';
import { docsPage, oidOf, withNamedSchemas } from './http/index.ts';
import type { CredentialResolver } from './core/identity/index.ts';
import { accountResponseSchemas, accountRoutes } from './accounts/index.ts';
import { agentResponseSchemas, agentRoutes } from './agents/index.ts';
import type { AccountService } from './accounts/index.ts';
import type { AgentService } from './agents/index.ts';
import type { AgentLister } from './agents/index.ts';
import type { JwtService } from './core/identity/index.ts';
import type { AccountLister } from './accounts/index.ts';
import { endpointResponseSchemas, endpointRoutes, type EndpointRouteDeps } from './endpoints/index.ts';
import { componentResponseSchemas, componentRoutes, type ComponentService, type DeploymentService } from './components/index.ts';
import { runResponseSchemas, runRoutes } from './runs/index.ts';
import type { RunService } from './runs/index.ts';
import { auditResponseSchemas, auditRoutes, type AuditLister } from './audit/index.ts';
import { SecretJson, secretRoutes, type SecretService } from './secrets/index.ts';

const API_VERSION = '1.3.0';
const API_TITLE = 'API Platform control plane';
const DOCS_PATH = '/api/v1/docs';
const TAGS = [
  { name: 'Accounts', description: 'Users, service accounts, API keys, workspaces, groups, tokens (INSTANCE_ADMIN for most)' },
  { name: 'Agents', description: 'Agent definitions: configuration, policy, ownership; optimistic locking by version or If-Match' },
  { name: 'Agent runs', description: 'Runs of an agent, their events (list and live stream), approvals and the agent\'s memory' },
  { name: 'Components', description: 'Reusable code (lowcode, node, json-validator) with immutable revisions and their approvals' },
  { name: 'Component deployments', description: 'Build attempts of node revisions and their activation' },
  { name: 'Endpoints', description: 'Endpoint definitions served by the runtime: activation, contract checks, statistics, generated OpenAPI' },
  { name: 'Audit', description: 'Control-plane changes and runtime invocations' },
  { name: 'Secrets', description: 'Encrypted values MCP server configurations name by id; never returned' },
];
const RESPONSE_SCHEMAS = [
  ...accountResponseSchemas,
  ...agentResponseSchemas,
  ...runResponseSchemas,
  ...componentResponseSchemas,
  ...endpointResponseSchemas,
  ...auditResponseSchemas,
  SecretJson,
];
const SPEC_PATH = '/api/v1/docs/json';

export interface ControlPlaneDeps {
  /** The public URL of the control plane: the document's `servers`. */
  baseUrl: string;
  credentials: CredentialResolver;
  jwt: JwtService;
  accountLister: AccountLister;
  accounts: AccountService;
  agents: AgentService;
  agentLister: AgentLister;
  endpoints: EndpointRouteDeps;
  components: ComponentService;
  deployments: DeploymentService;
  runs: RunService;
  audit: AuditLister;
  secrets: SecretService;
  readiness: () => Promise<{ ready: boolean; checks: Record<string, unknown> }>;
  /** GET /metrics (its token checked there). */
  metrics: (request: Request, oid: string) => Promise<Response>;
  log: HttpLogger;
}

export function createControlPlaneApp(deps: ControlPlaneDeps) {
  const routes: { allowed?: AllowedMethods } = {};
  const conventions = httpConventions(deps.credentials, deps.log, routes);
  const generated = swagger({
    path: DOCS_PATH,
    specPath: SPEC_PATH,
    // Operations routes are not the API: like the runtime's, they are described in the README.
    exclude: ['/healthz', '/readyz', '/metrics', /^\/api\/v1\/docs/],
    documentation: {
      // 3.1: the TypeBox schemas are JSON Schema 2020-12 (`const`), which 3.0 cannot carry. Schemas are
      // named by `title`, not `$id`: a sub-schema inlined in several bodies would repeat its `$id`,
      // which 2020-12 forbids in one document.
      openapi: '3.1.0',
      info: {
        title: API_TITLE,
        version: API_VERSION,
        description:
          'Agents, runs and run events, Components, Endpoint definitions, accounts and keys. Errors are application/problem+json ' +
          '(`Problem`, with a stable `code`); every response carries `x-svc-oid`. A method a documented path does not serve answers ' +
          '405 METHOD_NOT_ALLOWED with `Allow` listing the ones it does (HEAD wherever GET is).',
      },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key (`sk-…`) or a JWT' } },
        ...(documentComponents(RESPONSE_SCHEMAS) as object),
      },
      servers: [{ url: deps.baseUrl }],
      tags: TAGS,
      security: [{ bearer: [] }],
    },
  });
  // The plugin's document, with every named schema once in components (withNamedSchemas).
  const document = generated.routes.find((route) => route.method === 'GET' && route.path === SPEC_PATH)!.handler as () => object;
  const app = new Elysia({ normalize: false })
    .use(conventions)
    .use(generated)
    // After the plugin: its page (scripts from a CDN, the document at a relative URL) and its document
    // are replaced by ones served from this origin (Elysia keeps the last route registered for a
    // method and path).
    .use(docsPage({ path: DOCS_PATH, specPath: SPEC_PATH, title: API_TITLE, document: () => withNamedSchemas(document()) }))
    .get('/healthz', () => ({ status: 'ok' }))
    .get('/readyz', async ({ set }) => {
      const { ready, checks } = await deps.readiness();
      set.status = ready ? 200 : 503;
      return { status: ready ? 'ready' : 'not_ready', checks };
    })
    .get('/metrics', ({ request }) => deps.metrics(request, oidOf(request)))
    .group('/api/v1', (api) =>
      api
        .use(accountRoutes(conventions, { accounts: deps.accounts, jwt: deps.jwt, lister: deps.accountLister, credentials: deps.credentials }))
        .use(runRoutes(conventions, deps.runs))
        .use(agentRoutes(conventions, deps.agents, deps.agentLister))
        .use(componentRoutes(conventions, { components: deps.components, deployments: deps.deployments }))
        .use(endpointRoutes(conventions, deps.endpoints))
        .use(auditRoutes(conventions, deps.audit))
        .use(secretRoutes(conventions, deps.secrets)),
    );
  routes.allowed = allowedMethodsOf(app.routes);
  return app;
}

export type ControlPlaneApp = ReturnType<typeof createControlPlaneApp>;
