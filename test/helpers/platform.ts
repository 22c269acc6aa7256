// Test harness: a whole control plane on an in-memory database (or Postgres), driven in-process.
import { afterAll, beforeAll } from 'bun:test';
import { loadConfig } from '../../src/core/config.ts';
import { createPlatform, type Platform } from '../../src/index.ts';
import { silentLogger } from '../../src/core/log.ts';
import { createExecutor } from '../../runtime/executor/index.ts';
import type { Executor } from '../../runtime/executor/contract/types.ts';
import { dropPostgresSchema } from './databases.ts';
import { tempDir } from './temp.ts';
import { contractChecked } from './openapi-contract.ts';

export const ADMIN_KEY = 'sk-test-admin-key-0123456789abcdefghij';

export interface TestPlatform extends Platform {
  executor: Executor;
  /** Calls the control plane in-process. `key` defaults to the bootstrap admin key. */
  call(method: string, path: string, options?: { body?: unknown; key?: string | null; headers?: Record<string, string>; raw?: string }): Promise<Response>;
  json<T = Record<string, unknown>>(method: string, path: string, options?: { body?: unknown; key?: string | null; headers?: Record<string, string> }): Promise<{ status: number; body: T; headers: Headers }>;
}

/** A user with these roles (and workspaces) and a new API key of theirs: the key. */
export async function userKey(p: TestPlatform, name: string, roles: string[], workspaceIds?: string[]): Promise<string> {
  const u = await p.json<{ id: string }>('POST', '/api/v1/users', { body: { name, email: `${name}@example.com`, roles, platformAccess: true, ...(workspaceIds ? { workspaceIds } : {}) } });
  return (await p.json<{ key: string }>('POST', '/api/v1/api-keys', { body: { principalId: u.body.id, name } })).body.key;
}

export async function startTestPlatform(env: Record<string, string> = {}, options: { postgresSchema?: string } = {}): Promise<TestPlatform> {
  const dataDir = tempDir('platform-test');
  const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', PLATFORM_ADMIN_API_KEY: ADMIN_KEY, DATA_DIR: dataDir, PORT: '0', RUNTIME_PORT: '0', COMPONENT_ISOLATION: 'worker', ...env });
  const executor = await createExecutor({ isolation: 'worker', log: () => {} });
  const platform = await createPlatform(config, silentLogger, { executor, ...(options.postgresSchema ? { postgres: { schema: options.postgresSchema } } : {}) });
  const handle = contractChecked(platform.app);
  const call: TestPlatform['call'] = (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? ADMIN_KEY : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    return handle(new Request(`http://localhost${path}`, { method, headers, body }));
  };
  return {
    ...platform,
    executor,
    async close() {
      await platform.close();
      await executor.close();
    },
    call,
    async json(method, path, opts) {
      const response = await call(method, path, opts);
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null), headers: response.headers };
    },
  };
}

/**
 * Registers a suite's platform on one database case: started before its tests (then `ready` runs,
 * e.g. to keep it and make principals), closed after them with its Postgres schema dropped.
 */
export function platformFor(database: { env: Record<string, string>; postgresSchema?: string }, ready: (p: TestPlatform) => void | Promise<void>): void {
  let started: TestPlatform | undefined;
  beforeAll(async () => {
    started = await startTestPlatform(database.env, { postgresSchema: database.postgresSchema });
    await ready(started);
  });
  afterAll(async () => {
    await started?.close();
    await dropPostgresSchema(database.postgresSchema);
  });
}
