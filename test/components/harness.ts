// Test harness for Components until they are wired into src/app.ts. It composes, like
// src/platform.ts does, just what components need: the database, identity (stores, credentials,
// bootstrap admin), the conventions plugin and the component routes under /api/v1; a real
// executor (worker isolation) is the deployment verifier, and recorders stand in for the
// Endpoint-side hook and the index publisher.
import { Elysia } from 'elysia';
import { loadConfig } from '../../src/core/config.ts';
import { openDatabase, type Database } from '../../src/core/db/index.ts';
import { PrincipalStore } from '../../src/core/identity/principals.ts';
import { WorkspaceStore } from '../../src/core/identity/workspaces.ts';
import { GroupStore } from '../../src/core/identity/groups.ts';
import { CredentialResolver } from '../../src/core/identity/credentials.ts';
import { createJwtService } from '../../src/core/identity/jwt.ts';
import { AccountService } from '../../src/accounts/service.ts';
import { noPublisher } from '../../src/core/index-channels/index.ts';
import { bootstrap, jwtSecret } from '../../src/bootstrap.ts';
import type { Principal } from '../../src/core/identity/roles.ts';
import { httpConventions } from '../../src/http/plugin.ts';
import { silentLogger } from '../../src/core/log.ts';
import { ComponentService, DeploymentService, SourceChecker, componentRoutes, type ComponentRecord, type RevisionRecord } from '../../src/components/index.ts';
import { createExecutor, type Executor } from '../../runtime/executor/index.ts';
import type { DatabaseCase } from '../helpers/databases.ts';
import { tempDir } from '../helpers/temp.ts';

const ADMIN_KEY = 'sk-test-admin-key-0123456789abcdefghij';

interface HookCall {
  component: ComponentRecord;
  revision: RevisionRecord;
}

export interface ComponentHarness {
  db: Database;
  components: ComponentService;
  deployments: DeploymentService;
  executor: Executor;
  /** The conventions plugin the harness app is built with (for composing other apps in tests). */
  conventions: ReturnType<typeof httpConventions>;
  /** Every onActiveRevisionChanged call, in order. */
  hookCalls: HookCall[];
  /** Every version handed to the index publisher, in order. */
  published: number[];
  /** When set, the hook throws this (to prove it runs inside the transaction). */
  failHook: Error | null;
  json<T = Record<string, unknown>>(method: string, path: string, options?: { body?: unknown; key?: string | null; headers?: Record<string, string>; raw?: string }): Promise<{ status: number; body: T; headers: Headers }>;
  /** Creates a user with these roles (and workspaces) and returns its id, workspaces and an API key. */
  principal(name: string, roles: string[], extra?: Record<string, unknown>): Promise<{ id: string; key: string; workspaceIds: string[] }>;
  workspace(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function startComponentHarness(database: DatabaseCase): Promise<ComponentHarness> {
  const dataDir = tempDir('components-test');
  const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', PLATFORM_ADMIN_API_KEY: ADMIN_KEY, DATA_DIR: dataDir, PORT: '0', RUNTIME_PORT: '0', COMPONENT_ISOLATION: 'worker', ...database.env });
  const db = await openDatabase(config.DATABASE_URL, database.postgresSchema ? { schema: database.postgresSchema } : {});
  const principals = new PrincipalStore(db);
  const workspaces = new WorkspaceStore(db);
  const jwt = await createJwtService({ secret: jwtSecret(config) });
  const credentials = new CredentialResolver(principals, jwt);
  const boot = await bootstrap(config, db, { principals, workspaces }, silentLogger);
  const admin = (await principals.get(boot.adminPrincipalId))!;
  const accounts = new AccountService({ db, principals, workspaces, groups: new GroupStore(db), credentials, publisher: noPublisher });
  const executor = await createExecutor({ isolation: 'worker', log: () => {} });
  const harness = { hookCalls: [] as HookCall[], published: [] as number[], failHook: null as Error | null };
  const shared = {
    db,
    publisher: { published: async (version: number) => void harness.published.push(version) },
    onActiveRevisionChanged: async (_q: unknown, component: ComponentRecord, revision: RevisionRecord) => {
      if (harness.failHook) throw harness.failHook;
      harness.hookCalls.push({ component, revision });
    },
  };
  const sources = new SourceChecker();
  const components = new ComponentService({ ...shared, sources });
  const deployments = new DeploymentService({ ...shared, verifier: executor, log: silentLogger });
  const conventions = httpConventions(credentials, silentLogger);
  const app = new Elysia({ normalize: false })
    .use(conventions)
    .group('/api/v1', (api) => api.use(componentRoutes(conventions, { components, deployments })));

  const json: ComponentHarness['json'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? ADMIN_KEY : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  };

  return Object.assign(harness, {
    db,
    components,
    deployments,
    executor,
    conventions,
    json,
    async principal(name: string, roles: string[], extra: Record<string, unknown> = {}) {
      const user: Principal = await accounts.createUser(admin, { name, email: `${name}@example.com`, roles, platformAccess: true, ...extra });
      const key = await accounts.createKey(user, { name });
      return { id: user.id, key: key.key, workspaceIds: user.workspaceIds };
    },
    async workspace(name: string) {
      return (await accounts.createWorkspace(admin, { name })).id;
    },
    async close() {
      await deployments.idle();
      sources.close();
      await executor.close();
      await credentials.close();
      await db.close();
    },
  });
}
