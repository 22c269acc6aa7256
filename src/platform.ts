// The composition root: builds every part once from configuration and wires them together.
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/index.ts';
import type { PostgresOptions } from './db/postgres/open.ts';
import { PrincipalStore } from './auth/principals.ts';
import { WorkspaceStore } from './auth/workspaces.ts';
import { GroupStore } from './auth/groups.ts';
import { CredentialResolver } from './auth/credentials.ts';
import { createJwtService, type JwtService } from './auth/jwt.ts';
import { AccountService } from './accounts/service.ts';
import { AgentStore } from './agents/store.ts';
import { AgentService } from './agents/service.ts';
import { AgentLister } from './agents/list.ts';
import { bootstrap, jwtSecret, type BootstrapResult } from './bootstrap.ts';
import { createControlPlaneApp, type ControlPlaneApp } from './app.ts';
import type { Logger } from './lib/log.ts';

export interface Platform {
  config: Config;
  db: Database;
  app: ControlPlaneApp;
  jwt: JwtService;
  principals: PrincipalStore;
  credentials: CredentialResolver;
  boot: BootstrapResult;
  close(): Promise<void>;
}

export async function createPlatform(config: Config, log: Logger, options: { postgres?: PostgresOptions } = {}): Promise<Platform> {
  const db = await openDatabase(config.DATABASE_URL, options.postgres);
  const principals = new PrincipalStore(db);
  const workspaces = new WorkspaceStore(db);
  const groups = new GroupStore(db);
  const jwt = await createJwtService({
    secret: jwtSecret(config),
    publicKeyPem: config.JWT_PUBLIC_KEY,
    jwksUrl: config.JWT_JWKS_URL,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
  });
  const credentials = new CredentialResolver(principals, jwt);
  const boot = await bootstrap(config, db, { principals, workspaces }, log);

  const accounts = new AccountService({ principals, workspaces, groups, credentials });
  const agents = new AgentService({ agents: new AgentStore(db), principals, groups, enabledModels: config.ENABLED_MODELS });
  const app = createControlPlaneApp({
    credentials,
    jwt,
    workspaces,
    accounts,
    agents,
    agentLister: new AgentLister(db),
    readiness: async () => {
      const database = await db.ping();
      return { ready: database, checks: { database } };
    },
    log,
  });

  return {
    config,
    db,
    app,
    jwt,
    principals,
    credentials,
    boot,
    async close() {
      await credentials.close();
      await db.close();
    },
  };
}
