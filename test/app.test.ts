// Control-plane conventions: health, docs, x-svc-oid, problem+json for unknown routes, configuration.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { startTestPlatform, type TestPlatform } from './helpers/platform.ts';
import { loadConfig, ConfigError } from '../src/core/config.ts';
import { executorOptions } from '../runtime/executor/index.ts';
import { tempDir } from './helpers/temp.ts';

let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform();
});
afterAll(() => p.close());

describe('health', () => {
  test('/healthz and /readyz answer without credentials', async () => {
    expect((await p.json('GET', '/healthz', { key: null })).body).toEqual({ status: 'ok' });
    const ready = await p.json('GET', '/readyz', { key: null });
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'ready', checks: { database: true, index: { loaded: true, version: expect.any(Number) }, executor: { isolation: expect.any(String) } } });
  });
});

test('/readyz is 503 while no executor host is up (process isolation), as on the runtime', async () => {
  const { createPlatform } = await import('../src/platform.ts');
  const { silentLogger } = await import('../src/core/log.ts');
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  let hostsReady = 0;
  const executor = {
    execute: async () => ({ kind: 'failed' as const, status: 502 as const, code: 'EXECUTOR_CRASHED' as const, message: 'no host' }),
    verify: async () => ({ ok: false as const, error: 'no host' }),
    status: () => ({ isolation: 'process' as const, layers: { emptyEnv: true, unprivilegedUser: true, pidNamespace: true, networkNamespace: true, addressSpaceLimit: true, noNewPrivileges: true, syscallFilter: true, ipcNamespace: true, privateTmp: true }, workers: { runtime: 'bun' as const, permissions: 'unrestricted' as const }, hostsReady, hostsTotal: 2, hostsSpare: hostsReady, hostsBusy: 0, hostsReplaced: 0, workersRunning: 0 }),
    close: async () => {},
  };
  const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', DATA_DIR: tempDir('readyz'), PORT: '0', RUNTIME_PORT: '0' });
  const platform = await createPlatform(config, silentLogger, { executor });
  try {
    const down = await platform.app.handle(new Request('http://localhost/readyz'));
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 'not_ready', checks: { database: true, executor: { hostsReady: 0, hostsTotal: 2 } } });
    hostsReady = 1;
    expect((await platform.app.handle(new Request('http://localhost/readyz'))).status).toBe(200);
  } finally {
    await platform.close();
  }
});

describe('x-svc-oid', () => {
  test('a valid incoming oid is continued, an invalid one replaced; problems carry the same oid', async () => {
    const kept = await p.json('GET', '/api/v1/me', { headers: { 'x-svc-oid': 'trace:abc-1.2' } });
    expect(kept.headers.get('x-svc-oid')).toBe('trace:abc-1.2');
    const replaced = await p.json('GET', '/api/v1/nope', { headers: { 'x-svc-oid': 'bad oid with spaces' } });
    const oid = replaced.headers.get('x-svc-oid')!;
    expect(oid).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(oid).not.toBe('bad oid with spaces');
    expect(replaced.body).toMatchObject({ status: 404, code: 'NOT_FOUND', oid });
    expect((await p.json('GET', '/api/v1/me', { headers: { 'x-svc-oid': 'x'.repeat(129) } })).headers.get('x-svc-oid')).not.toBe('x'.repeat(129));
  });

  test('the credential comes first under /api/ even where no route is: 401 without a valid one, then 404 or 405', async () => {
    for (const [method, path, known] of [['GET', '/api/v1/does/not/exist', 404], ['PUT', '/api/v1/agents/00000000-0000-4000-8000-000000000000', 405], ['GET', '/api/v2/anything', 404]] as const) {
      const anonymous = await p.json(method, path, { key: null });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ status: 401, oid: anonymous.headers.get('x-svc-oid') });
      expect((await p.json(method, path, { key: 'sk-not-a-key-0000000000000000000000000000' })).status).toBe(401);
      expect((await p.json(method, path)).status).toBe(known);
    }
    // Outside /api/ the public paths stay public, and an unknown one is 404.
    expect((await p.json('GET', '/healthz', { key: null })).status).toBe(200);
    expect((await p.json('GET', '/nothing-here', { key: null })).status).toBe(404);
  });

  test('a path served with other methods → 405 problem+json with Allow', async () => {
    for (const [method, path, allow] of [
      ['PUT', '/api/v1/users', 'GET, HEAD, POST'],
      ['DELETE', '/api/v1/me', 'GET, HEAD'],
      ['GET', '/api/v1/auth/token', 'POST'],
      ['PUT', '/api/v1/agents/00000000-0000-4000-8000-000000000000', 'DELETE, GET, HEAD, PATCH'],
      ['POST', '/healthz', 'GET, HEAD'],
    ] as const) {
      const r = await p.json(method, path);
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe(allow);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      expect(r.body).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED', oid: r.headers.get('x-svc-oid') });
    }
  });

  test('unknown route → 404 problem+json, with no stack trace', async () => {
    const r = await p.call('POST', '/api/v1/does/not/exist', { body: {} });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    const text = await r.text();
    expect(text).not.toContain(' at ');
  });
});

describe('OpenAPI', () => {
  test('the control-plane document is valid OpenAPI with version 1.3.0 and bearer security', async () => {
    const doc = await p.json<Record<string, any>>('GET', '/api/v1/docs/json', { key: null });
    expect(doc.status).toBe(200);
    expect(doc.body.info.version).toBe('1.3.0');
    expect(doc.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    const patch = doc.body.paths['/api/v1/agents/{agentId}'].patch;
    expect(patch.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/AgentUpdateBody' });
    expect(doc.body.components.schemas.AgentUpdateBody.properties.config).toEqual({ $ref: '#/components/schemas/AgentConfig' });
    expect(patch.security).toEqual([{ bearer: [] }]);
    await SwaggerParser.validate(structuredClone(doc.body) as unknown as Parameters<typeof SwaggerParser.validate>[0]);
    // JSON Schema 2020-12: one `$id` names one schema in a document (a sub-schema inlined in several
    // bodies must not carry one, else validators such as Ajv refuse the document).
    const ids: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) return v.forEach(walk);
      if (typeof v !== 'object' || v === null) return;
      const id = (v as Record<string, unknown>).$id;
      if (typeof id === 'string') ids.push(id);
      Object.values(v).forEach(walk);
    };
    walk(doc.body);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  test('every list names the list-engine query parameters and its page envelope; conflicts are documented', async () => {
    const doc = (await p.json<Record<string, any>>('GET', '/api/v1/docs/json', { key: null })).body;
    const lists = ['/api/v1/agents', '/api/v1/agents/runs/{agentRunId}/events', '/api/v1/endpoints', '/api/v1/components', '/api/v1/api-keys', '/api/v1/workspaces', '/api/v1/audit', '/api/v1/users', '/api/v1/service-accounts', '/api/v1/groups'];
    for (const path of lists) {
      const get = doc.paths[path].get;
      const query = get.parameters.filter((x: { in: string }) => x.in === 'query').map((x: { name: string }) => x.name);
      expect(query).toEqual(expect.arrayContaining(['offset', 'limit', 'count', 'filter', 'sort', 'distinct', 'fields', 'joins', 'groupBy', 'cast', 'cte', 'debug']));
      expect(get.responses['200'].content['application/json'].schema.required).toEqual(['data', 'meta']);
    }
    expect(Object.keys(doc.paths['/api/v1/agents/{agentId}'].patch.responses)).toEqual(expect.arrayContaining(['409', '412', '413', '422']));
    expect(Object.keys(doc.paths['/api/v1/endpoints/{endpointId}/activate'].post.responses)).toEqual(expect.arrayContaining(['409', '422']));
    // Path parameters carry the names of the spec (endpointId, agentRunId) and of DESIGN §2 and §5 (accounts, secrets: id).
    expect(doc.paths['/api/v1/endpoints/{endpointId}/openapi']).toBeDefined();
    expect(doc.paths['/api/v1/agents/runs/{agentRunId}/events']).toBeDefined();
    expect(Object.keys(doc.paths).filter((path) => path.includes('{id}'))).toEqual(['/api/v1/users/{id}', '/api/v1/service-accounts/{id}', '/api/v1/api-keys/{id}', '/api/v1/secrets/{id}']);
  });

  test('the docs UI is served', async () => {
    const r = await p.call('GET', '/api/v1/docs', { key: null });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
  });
});

describe('configuration', () => {
  test('defaults are applied and URLs derived from ports', () => {
    const c = loadConfig({});
    expect(c.AUDIT_RETENTION_DAYS).toBeUndefined();
    expect(loadConfig({ AUDIT_RETENTION_DAYS: '30' }).AUDIT_RETENTION_DAYS).toBe(30);
    expect(c).toMatchObject({ PORT: 8080, RUNTIME_PORT: 8081, BASE_URL: 'http://127.0.0.1:8080', ENDPOINT_RUNTIME_URL: 'http://127.0.0.1:8081', COMPONENT_ISOLATION: 'process', ENABLED_MODELS: ['scripted'] });
  });

  test.each([
    ['PORT', 'eighty'],
    ['RUNTIME_PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['COMPONENT_ISOLATION', 'none'],
    ['PLATFORM_ADMIN_API_KEY', 'sk-too-short'],
    ['ENDPOINT_RUNTIME_URL', 'not a url'],
    ['EXECUTOR_MAX_HOSTS', '0'],
    ['EXECUTOR_HOSTS_PER_WORKSPACE', 'two'],
    ['BASE_URL', 'ftp://files.example.com'],
    ['ENDPOINT_RUNTIME_URL', 'ftp://x'],
    ['JWT_JWKS_URL', 'file:///etc/jwks.json'],
    ['JWT_PUBLIC_KEY', 'garbage'],
    ['AUDIT_RETENTION_DAYS', '0'],
    ['AUDIT_RETENTION_DAYS', '7d'],
    ['REDIS_URL', 'http://127.0.0.1:6379'],
    ['REDIS_URL', 'redis://127.0.0.1:notaport'],
    ['REDIS_URL', 'redis://127.0.0.1:6379 extra'],
    ['REDIS_URL', 'redis://'],
    ['REDIS_URL', 'redis://127.0.0.1:6379/cache'],
    ['DATABASE_URL', 'postgres://app:pass/with@slash@127.0.0.1:5432/x'],
  ])('a bad %s stops the start with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    try {
      loadConfig({ [name]: value });
    } catch (error) {
      expect((error as Error).message).toContain(name);
      expect((error as Error).message).not.toContain('pass/with');
    }
  });

  test('executor hosts: spares, ceiling and per-workspace limit reach the executor', () => {
    const log = () => {};
    expect(executorOptions(loadConfig({}), log)).toMatchObject({ isolation: 'process', hosts: 2, maxHosts: 16, memoryMb: 1024 });
    expect(executorOptions(loadConfig({}), log)).not.toHaveProperty('hostsPerTenant');
    const set = loadConfig({ EXECUTOR_HOSTS: '3', EXECUTOR_MAX_HOSTS: '40', EXECUTOR_HOSTS_PER_WORKSPACE: '4' });
    expect(executorOptions(set, log)).toMatchObject({ hosts: 3, maxHosts: 40, hostsPerTenant: 4 });
    expect(executorOptions(set, log, 1)).toMatchObject({ hosts: 1, maxHosts: 40 });
  });

  test('JWT_PUBLIC_KEY must be an RSA or P-256 public key in PEM', () => {
    const { generateKeyPairSync } = require('node:crypto') as typeof import('node:crypto');
    const pem = (key: import('node:crypto').KeyObject) => key.export({ type: 'spki', format: 'pem' }).toString();
    expect(() => loadConfig({ JWT_PUBLIC_KEY: 'garbage' })).toThrow('JWT_PUBLIC_KEY: not a PEM-encoded public key');
    expect(() => loadConfig({ JWT_PUBLIC_KEY: pem(generateKeyPairSync('ed25519').publicKey) })).toThrow('JWT_PUBLIC_KEY: unsupported key type ed25519');
    expect(() => loadConfig({ JWT_PUBLIC_KEY: pem(generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey) })).toThrow('unsupported key type ec (secp384r1)');
    expect(loadConfig({ JWT_PUBLIC_KEY: pem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey) }).JWT_PUBLIC_KEY).toContain('BEGIN PUBLIC KEY');
    expect(loadConfig({ JWT_PUBLIC_KEY: pem(generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey) }).JWT_PUBLIC_KEY).toContain('BEGIN PUBLIC KEY');
  });

  test('REDIS_URL takes what ioredis connects with: host, port, password, database number, TLS', () => {
    for (const url of ['redis://127.0.0.1:6379', 'redis://:secret@cache.internal:6380/3', 'rediss://cache.example.com', 'redis://[::1]:6379/0', 'redis://cache/']) {
      expect(loadConfig({ REDIS_URL: url }).REDIS_URL).toBe(url);
    }
    expect(() => loadConfig({ REDIS_URL: 'redis://' })).toThrow('REDIS_URL: must name a host');
    expect(() => loadConfig({ REDIS_URL: 'redis://h:6379/cache' })).toThrow('REDIS_URL: the database (cache) must be a number');
  });

  test('a bad enumerated value names every allowed one', () => {
    expect(() => loadConfig({ COMPONENT_ISOLATION: 'sandbox' })).toThrow('COMPONENT_ISOLATION: Expected one of: process, worker');
  });
});
