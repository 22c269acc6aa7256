// Every response of a representative tour of the control plane is one its OpenAPI document
// declares: the status for that path and method, the body matching the declared schema.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { tempDir } from '../helpers/temp.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { openApiContract, type ContractCheck } from '../helpers/openapi-contract.ts';

let p: TestPlatform;
let contract: ContractCheck;
beforeAll(async () => {
  p = await startTestPlatform({ BASE_URL: 'https://api.example.test' });
  contract = await openApiContract(p.app);
});
afterAll(() => p.close());

type Reply = { status: number; body: any; headers: Headers };

/** Calls the app, asserts the status, and that the response conforms to the document. */
async function call(method: string, path: string, status: number, options: { body?: unknown; key?: string | null; headers?: Record<string, string> } = {}): Promise<Reply> {
  const reply = await p.json<any>(method, path, options);
  expect({ method, path, status: reply.status, body: reply.status === status ? 'ok' : reply.body }).toEqual({ method, path, status, body: 'ok' });
  expect(contract.violations(method, path, reply)).toEqual([]);
  return reply;
}

const NO_SUCH = '00000000-0000-4000-8000-000000000000';

describe('the document', () => {
  test('is valid OpenAPI 3.1, with servers from BASE_URL, described tags and a readable operationId on every operation', async () => {
    const doc = (await p.json<any>('GET', '/api/v1/docs/json')).body;
    await SwaggerParser.validate(structuredClone(doc));
    expect(doc.servers).toEqual([{ url: 'https://api.example.test' }]);
    const tags = new Set<string>(doc.tags.map((t: { name: string; description: string }) => (expect(t.description.length).toBeGreaterThan(0), t.name)));
    const ids: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        ids.push(op.operationId);
        expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
        expect(tags.has(op.tags[0])).toBe(true);
        for (const [status, response] of Object.entries<any>(op.responses)) {
          // Every success with a body names its schema: a record by $ref, or a list page of one.
          const json = response.content?.['application/json']?.schema;
          if (status.startsWith('2') && json) expect(json.$ref ?? json.properties?.data?.items?.$ref).toMatch(/^#\/components\/schemas\//);
        }
        for (const param of op.parameters ?? []) if (param.in === 'path') expect({ path, method, param: param.name, format: param.schema.format }).toEqual({ path, method, param: param.name, format: 'uuid' });
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['updateAgent', 'listRunEvents', 'streamRunEvents', 'startRun', 'listAgents']));
    const patch = doc.paths['/api/v1/agents/{agentId}'].patch;
    expect(patch.parameters.map((x: { name: string; in: string }) => `${x.in}:${x.name}`)).toEqual(['path:agentId', 'header:If-Match']);
    expect(Object.keys(patch.responses['200'].headers).sort()).toEqual(['etag', 'x-svc-oid']);
  });

  test('names every titled schema once, in components, and refers to it by $ref everywhere else', async () => {
    const doc = (await p.json<any>('GET', '/api/v1/docs/json')).body;
    const inline: string[] = [];
    const walk = (value: unknown, at: string, root: boolean) => {
      if (Array.isArray(value)) return value.forEach((item, i) => walk(item, `${at}/${i}`, false));
      if (typeof value !== 'object' || value === null) return;
      const node = value as Record<string, unknown>;
      if (!root && typeof node.title === 'string' && ('type' in node || 'anyOf' in node)) inline.push(`${at}: ${node.title}`);
      for (const [key, item] of Object.entries(node)) if (!['example', 'examples', 'default', 'const', 'enum'].includes(key)) walk(item, `${at}/${key}`, false);
    };
    walk(doc.paths, '#/paths', false);
    for (const [name, schema] of Object.entries(doc.components.schemas)) walk(schema, `#/components/schemas/${name}`, true);
    expect(inline).toEqual([]);
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['AgentConfig', 'AgentPluginApprovalConfig', 'AgentUpdateBody', 'EndpointSettings', 'EndpointSettingsUpdate']));
    expect(doc.paths['/api/v1/agents/{agentId}'].patch.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/AgentUpdateBody' });
    await SwaggerParser.validate(structuredClone(doc));
  });

  test('each operation names the problem codes it answers, by status', async () => {
    const doc = (await p.json<any>('GET', '/api/v1/docs/json')).body;
    const codesOf = (path: string, method: string, status: number) => doc.paths[path][method].responses[String(status)].content['application/problem+json'].schema.allOf[1].properties.code.enum;
    expect(codesOf('/api/v1/agents/{agentId}', 'patch', 409)).toEqual(['VERSION_CONFLICT', 'AGENT_DISABLED']);
    expect(codesOf('/api/v1/agents/{agentId}', 'patch', 412)).toEqual(['PRECONDITION_FAILED']);
    expect(codesOf('/api/v1/agents/{agentId}', 'patch', 422)).toEqual(['VALIDATION_FAILED', 'RESERVED_METADATA_KEY', 'METADATA_TOO_LARGE', 'MODEL_NOT_ENABLED']);
    expect(codesOf('/api/v1/agents/{agentId}/runs', 'post', 409)).toEqual(['AGENT_DISABLED', 'RUN_FINISHED', 'MAX_CHILD_RUNS', 'IDEMPOTENCY_KEY_REUSED']);
    expect(codesOf('/api/v1/components/{componentId}/deployments', 'post', 409)).toEqual(['CONFLICT']);
    expect(codesOf('/api/v1/endpoints/{endpointId}', 'delete', 409)).toEqual(['ENDPOINT_ACTIVE']);
    expect(doc.paths['/api/v1/agents'].get.responses['403'].description).toContain('DEBUG_FORBIDDEN');
    // A code an operation does not list is a contract violation.
    const contract = await openApiContract(p.app);
    const headers = new Headers({ 'content-type': 'application/problem+json' });
    const body = { type: 'about:blank', title: 'Conflict', status: 409, code: 'ROUTE_CONFLICT', detail: 'x' };
    expect(contract.violations('DELETE', `/api/v1/endpoints/${NO_SUCH}`, { status: 409, body, headers }).join()).toContain('allowed values');
    expect(contract.violations('DELETE', `/api/v1/endpoints/${NO_SUCH}`, { status: 409, body: { ...body, code: 'ENDPOINT_ACTIVE' }, headers })).toEqual([]);
  });

  test('passes @redocly/cli lint with its recommended rules: no errors, and no warning but the two the interface makes', async () => {
    const doc = (await p.json<any>('GET', '/api/v1/docs/json')).body;
    const file = join(tempDir('openapi-lint-'), 'openapi.json');
    writeFileSync(file, JSON.stringify(doc, null, 1));
    const cli = fileURLToPath(import.meta.resolve('@redocly/cli/bin/cli.js'));
    const lint = Bun.spawn(['node', cli, 'lint', file, '--format=json'], { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });
    const [out, code] = await Promise.all([new Response(lint.stdout).text(), lint.exited]);
    const report = JSON.parse(out) as { totals: { errors: number }; problems: { ruleId: string; severity: string; message: string }[] };
    expect(report.problems.filter((x) => x.severity === 'error')).toEqual([]);
    expect({ code, errors: report.totals.errors }).toEqual({ code: 0, errors: 0 });
    // The paths /agents/{agentId}/runs and /agents/runs/{agentRunId} are the interface's own (the
    // literal segment wins, tested in test/http/allow.test.ts); the project has no license to name.
    expect([...new Set(report.problems.map((x) => x.ruleId))].sort()).toEqual(['info-license', 'no-ambiguous-paths']);
  }, 60_000);
});

describe('responses conform to the document', () => {
  test('accounts: users, service accounts, keys, workspaces, groups, me, token', async () => {
    const me = await call('GET', '/api/v1/me', 200);
    const workspace = await call('POST', '/api/v1/workspaces', 201, { body: { name: 'contract' } });
    await call('POST', '/api/v1/workspaces', 409, { body: { name: 'contract' } });
    await call('GET', '/api/v1/workspaces', 200);
    const user = await call('POST', '/api/v1/users', 201, { body: { name: 'ada', email: 'ada@example.com', roles: ['AGENT_ADMIN'], platformAccess: true, workspaceIds: [workspace.body.id] } });
    await call('GET', `/api/v1/users/${user.body.id}`, 200);
    await call('PATCH', `/api/v1/users/${user.body.id}`, 200, { body: { roles: ['AGENT_ADMIN', 'AGENT_USER'] } });
    await call('GET', '/api/v1/users?count=true&sort=-createdAt', 200);
    await call('GET', '/api/v1/users?fields=id,name', 200);
    await call('GET', `/api/v1/users/${NO_SUCH}`, 404);
    const sa = await call('POST', '/api/v1/service-accounts', 201, { body: { name: 'robot', roles: ['AGENT_USER'], platformAccess: true, workspaceIds: [workspace.body.id] } });
    await call('GET', `/api/v1/service-accounts/${sa.body.id}`, 200);
    await call('PATCH', `/api/v1/service-accounts/${sa.body.id}`, 200, { body: { active: false } });
    await call('GET', '/api/v1/service-accounts', 200);
    const key = await call('POST', '/api/v1/api-keys', 201, { body: { principalId: user.body.id, name: 'k' } });
    await call('GET', `/api/v1/api-keys?principalId=${user.body.id}`, 200);
    await call('GET', '/api/v1/me', 200, { key: key.body.key });
    await call('POST', '/api/v1/auth/token', 200, { key: key.body.key });
    await call('DELETE', `/api/v1/api-keys/${key.body.id}`, 204);
    await call('POST', '/api/v1/groups', 201, { body: { name: 'g', memberIds: [user.body.id] } });
    await call('GET', '/api/v1/groups', 200);
    await call('POST', '/api/v1/users', 422, { body: { name: '' } });
    await call('GET', '/api/v1/me', 401, { key: null });
    expect(me.body.id).toBeString();
  });

  test('agents, runs, events, approvals, memory', async () => {
    const agent = await call('POST', '/api/v1/agents', 201, { body: { name: 'contract', status: 'PAUSED' } });
    const id = agent.body.id;
    await call('GET', `/api/v1/agents/${id}`, 200);
    await call('PATCH', `/api/v1/agents/${id}`, 200, { body: { desc: 'tour' }, headers: { 'if-match': agent.headers.get('etag')! } });
    await call('PATCH', `/api/v1/agents/${id}`, 412, { body: { desc: 'stale' }, headers: { 'if-match': '"0"' } });
    await call('PATCH', `/api/v1/agents/${id}`, 409, { body: { desc: 'stale', version: 0 } });
    await call('PATCH', `/api/v1/agents/${id}`, 422, { body: { status: 'NOPE' } });
    await call('GET', '/api/v1/agents?count=true', 200);
    await call('GET', '/api/v1/agents?fields=id,name&limit=1', 200);
    await call('GET', `/api/v1/agents/${NO_SUCH}`, 404);
    const run = await call('POST', `/api/v1/agents/${id}/runs`, 201, { body: { input: { q: 'hi' } }, headers: { 'idempotency-key': 'k-1' } });
    await call('POST', `/api/v1/agents/${id}/runs`, 200, { body: { input: { q: 'hi' } }, headers: { 'idempotency-key': 'k-1' } });
    await call('POST', `/api/v1/agents/${id}/runs`, 409, { body: { input: { q: 'other' } }, headers: { 'idempotency-key': 'k-1' } });
    await call('GET', `/api/v1/agents/runs/${run.body.id}`, 200);
    await call('GET', `/api/v1/agents/${id}/runs?count=true`, 200);
    await call('GET', `/api/v1/agents/runs/${run.body.id}/events`, 200);
    await call('GET', `/api/v1/agents/runs/${run.body.id}/events?fields=seq,type`, 200);
    await call('GET', `/api/v1/agents/runs/${run.body.id}/approvals`, 200);
    await call('POST', `/api/v1/agents/runs/${run.body.id}/approvals/${NO_SUCH}`, 404, { body: { approve: true } });
    await call('GET', `/api/v1/agents/${id}/memory`, 200);
    await call('POST', `/api/v1/agents/runs/${run.body.id}/cancel`, 202);
    await call('GET', `/api/v1/agents/runs/${NO_SUCH}`, 404);
    await call('DELETE', `/api/v1/agents/${id}`, 204);
  });

  test('components, revisions, approvals, endpoints, audit, secrets', async () => {
    const component = await call('POST', '/api/v1/components', 201, { body: { name: 'tour', kind: 'lowcode', elements: [{ name: 'out', code: 'return 1;' }] } });
    const cid = component.body.id;
    await call('GET', `/api/v1/components/${cid}`, 200);
    const updated = await call('PATCH', `/api/v1/components/${cid}`, 200, { body: { elements: [{ name: 'out', code: 'return 2;' }] } });
    await call('GET', '/api/v1/components', 200);
    await call('GET', `/api/v1/components/${cid}/revisions`, 200);
    const revision = updated.body.latestRevision.id;
    await call('GET', `/api/v1/components/${cid}/revisions/${revision}`, 200);
    await call('GET', `/api/v1/components/${cid}/revisions/${revision}/approval`, 200);
    await call('POST', `/api/v1/components/${cid}/revisions/${revision}/approve`, 200);
    await call('GET', `/api/v1/components/${cid}/deployments`, 200);
    await call('POST', '/api/v1/components', 422, { body: { name: 'bad', kind: 'lowcode', elements: [{ name: 'out', code: 'return (' }] } });

    const endpoint = await call('POST', '/api/v1/endpoints', 201, { body: { name: 'tour', method: 'GET', path: '/tour', componentId: cid } });
    const eid = endpoint.body.id;
    await call('GET', `/api/v1/endpoints/${eid}`, 200);
    await call('PATCH', `/api/v1/endpoints/${eid}`, 200, { body: { description: 'tour' } });
    await call('POST', `/api/v1/endpoints/${eid}/validate`, 200);
    await call('POST', `/api/v1/endpoints/${eid}/activate`, 200);
    await call('GET', `/api/v1/endpoints/${eid}/statistics`, 200);
    await call('GET', `/api/v1/endpoints/${eid}/openapi`, 200);
    await call('GET', '/api/v1/endpoints/openapi', 200);
    await call('GET', '/api/v1/endpoints', 200);
    await call('GET', '/api/v1/endpoints/settings', 200);
    await call('DELETE', `/api/v1/components/${cid}`, 409);
    await call('POST', `/api/v1/endpoints/${eid}/disable`, 200);
    await call('DELETE', `/api/v1/endpoints/${eid}`, 204);

    await call('GET', '/api/v1/audit?count=true', 200);
    await call('GET', '/api/v1/audit?fields=id,action&limit=5', 200);
    const secret = await call('POST', '/api/v1/secrets', 201, { body: { name: 'token', value: 's3cret' } });
    await call('DELETE', `/api/v1/secrets/${secret.body.id}`, 204);
  });
});

test('the check refuses an undeclared status, a body off its schema, a wrong list item and an undeclared media type', () => {
  const json = new Headers({ 'content-type': 'application/json' });
  const agent = `/api/v1/agents/${NO_SUCH}`;
  expect(contract.violations('GET', agent, { status: 418, body: {}, headers: json })[0]).toContain('status 418 is not declared');
  expect(contract.violations('GET', agent, { status: 200, body: { id: 'not-a-uuid' }, headers: json }).length).toBeGreaterThan(1);
  expect(contract.violations('GET', '/api/v1/agents', { status: 200, body: { data: [{ version: 'one' }], meta: { offset: 0, limit: 1, hasMore: false } }, headers: json }).join()).toContain('/data/0/version');
  expect(contract.violations('GET', agent, { status: 404, body: { status: 404 }, headers: json })[0]).toContain('media type application/json is not declared');
  expect(contract.violations('PUT', agent, { status: 200, body: {}, headers: json })[0]).toContain('no such operation');
});

test('the fallbacks (unknown path, other method) are outside the document', () => {
  expect(contract.declares('GET', `/api/v1/agents/${NO_SUCH}`)).toBe(true);
  expect(contract.declares('PUT', `/api/v1/agents/${NO_SUCH}`)).toBe(false);
  expect(contract.declares('GET', '/api/v1/does/not/exist')).toBe(false);
});
