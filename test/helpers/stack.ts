// Both origins on real sockets, wired as `npm start` wires them (embedded index, in-process api.platform).
import { contractChecked } from './openapi-contract.ts';
import { loadConfig, withBoundPorts } from '../../src/core/config.ts';
import { createPlatform, type Platform } from '../../src/index.ts';
import { silentLogger, type Logger } from '../../src/core/log.ts';
import { createExecutor } from '../../runtime/executor/index.ts';
import type { Executor } from '../../runtime/executor/contract/types.ts';
import { createRuntime, type Runtime } from '../../runtime/create.ts';
import { SERVER_BODY_CAP } from '../../src/core/http/body.ts';
import { ADMIN_KEY } from './platform.ts';
import { tempDir } from './temp.ts';

export interface Stack {
  platform: Platform;
  runtime: Runtime;
  executor: Executor;
  baseUrl: string;
  runtimeUrl: string;
  /** Control plane over HTTP; `key` defaults to the bootstrap admin. */
  api<T = any>(method: string, path: string, body?: unknown, key?: string | null): Promise<{ status: number; body: T; headers: Headers }>;
  /** The runtime over HTTP. */
  invoke(method: string, path: string, options?: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<Response>;
  /** A user (or service account) with roles and a key. */
  principal(roles: string[], extra?: Record<string, unknown>): Promise<{ id: string; key: string }>;
  /** Creates and activates an Endpoint; returns its record. */
  endpoint(definition: Record<string, unknown>): Promise<Record<string, any>>;
  close(): Promise<void>;
}

export async function startStack(env: Record<string, string> = {}, options: { postgresSchema?: string; isolation?: 'worker' | 'process'; runtimeLog?: Logger; /** the runtime server's idle timeout in seconds (Bun's default: 10) */ runtimeIdleTimeout?: number } = {}): Promise<Stack> {
  const dataDir = tempDir('platform-stack');
  const source = { DATABASE_URL: 'sqlite::memory:', PLATFORM_ADMIN_API_KEY: ADMIN_KEY, DATA_DIR: dataDir, PORT: '0', RUNTIME_PORT: '0', COMPONENT_ISOLATION: options.isolation ?? 'worker', ...env };
  let config = loadConfig(source);
  const executor = await createExecutor({ isolation: config.COMPONENT_ISOLATION, hosts: 1, log: () => {} });
  // Bind first (port 0), then derive the URLs the parts are told about.
  let platform: Platform | null = null;
  let runtime: Runtime | null = null;
  let checked: ((request: Request) => Promise<Response>) | null = null;
  const control = Bun.serve({ port: 0, hostname: '127.0.0.1', maxRequestBodySize: SERVER_BODY_CAP, fetch: (r) => checked!(r) });
  const edge = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    maxRequestBodySize: SERVER_BODY_CAP,
    ...(options.runtimeIdleTimeout === undefined ? {} : { idleTimeout: options.runtimeIdleTimeout }),
    fetch: (r, s) => runtime!.fetch(r, s),
  });
  config = withBoundPorts(config, source, { control: control.port, runtime: edge.port });
  platform = await createPlatform(config, silentLogger, { executor, ...(options.postgresSchema ? { postgres: { schema: options.postgresSchema } } : {}) });
  checked = contractChecked(platform.app);
  runtime = await createRuntime({ config, db: platform.db, credentials: platform.credentials, jwt: platform.jwt, executor, log: options.runtimeLog ?? silentLogger, embedded: { publisher: platform.publisher, controlPlane: (r) => platform!.app.handle(r) } });
  const baseUrl = config.BASE_URL;
  const runtimeUrl = config.ENDPOINT_RUNTIME_URL;

  const api: Stack['api'] = async (method, path, body, key = ADMIN_KEY) => {
    const headers: Record<string, string> = {};
    if (key) headers.authorization = `Bearer ${key}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const r = await fetch(baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null, headers: r.headers };
  };
  const stack: Stack = {
    platform,
    runtime,
    executor,
    baseUrl,
    runtimeUrl,
    api,
    invoke(method, path, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      const key = o.key === undefined ? ADMIN_KEY : o.key;
      if (key) headers.authorization = `Bearer ${key}`;
      let body: string | undefined = o.raw;
      if (o.body !== undefined) {
        body = JSON.stringify(o.body);
        headers['content-type'] ??= 'application/json';
      }
      return fetch(runtimeUrl + path, { method, headers, body });
    },
    async principal(roles, extra = {}) {
      const kind = extra.kind === 'SERVICE_ACCOUNT' ? 'service-accounts' : 'users';
      const { kind: _k, ...rest } = extra;
      const n = crypto.randomUUID().slice(0, 8);
      const body = kind === 'users' ? { name: `u${n}`, email: `u${n}@example.com`, roles, platformAccess: true, ...rest } : { name: `sa${n}`, roles, platformAccess: true, ...rest };
      const created = await api('POST', `/api/v1/${kind}`, body);
      if (created.status !== 201) throw new Error(`principal: ${JSON.stringify(created.body)}`);
      const key = await api('POST', '/api/v1/api-keys', { principalId: created.body.id, name: 'k' });
      return { id: created.body.id, key: key.body.key };
    },
    async endpoint(definition) {
      const created = await api('POST', '/api/v1/endpoints', { name: 'e', ...definition });
      if (created.status !== 201) throw new Error(`endpoint: ${JSON.stringify(created.body)}`);
      const activated = await api('POST', `/api/v1/endpoints/${created.body.id}/activate`);
      if (activated.status !== 200) throw new Error(`activate: ${JSON.stringify(activated.body)}`);
      return activated.body;
    },
    async close() {
      await edge.stop(true);
      await control.stop(true);
      await runtime!.close();
      await platform!.close();
      await executor.close();
    },
  };
  return stack;
}
