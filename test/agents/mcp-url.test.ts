// An MCP server's url (DESIGN §5 Tools): https://, or http:// to a loopback host when the instance
// sets MCP_ALLOW_HTTP_LOOPBACK=true; anything else is 422 at the url's pointer, on create and PATCH.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { isLoopbackHost } from '../../src/core/lib/loopback.ts';

const LOOPBACK = ['http://127.0.0.1:8080/mcp', 'http://127.10.20.30/mcp', 'http://localhost/mcp', 'http://LOCALHOST:9/mcp', 'http://[::1]:8080/mcp', 'http://127.1/mcp', 'http://[::ffff:127.0.0.1]/mcp'];
const ELSEWHERE = ['http://mcp.example.com/mcp', 'http://10.0.0.1/mcp', 'http://128.0.0.1/mcp', 'http://127.0.0.1.nip.io/mcp', 'http://localhost.example.com/mcp', 'http://[::2]/mcp', 'http://0.0.0.0/mcp'];
const POINTER = '/config/plugins/0/mcpServer/url';

const withUrl = (url: string) => ({ config: { plugins: [{ id: 'tools', kind: 'mcp_server', mcpServer: { url } }] } });

describe('with MCP_ALLOW_HTTP_LOOPBACK=true', () => {
  let p: TestPlatform;
  let agentId: string;
  beforeAll(async () => {
    p = await startTestPlatform({ MCP_ALLOW_HTTP_LOOPBACK: 'true' });
    agentId = (await p.json<{ id: string }>('POST', '/api/v1/agents', { body: { name: 'mcp' } })).body.id;
  });
  afterAll(() => p.close());

  test('http:// to a loopback host is accepted at create and PATCH, and stored as given', async () => {
    for (const url of LOOPBACK) {
      const created = await p.json<Record<string, any>>('POST', '/api/v1/agents', { body: { name: 'loop', ...withUrl(url) } });
      expect({ url, status: created.status }).toEqual({ url, status: 201 });
      const patched = await p.json<Record<string, any>>('PATCH', `/api/v1/agents/${agentId}`, { body: withUrl(url) });
      expect({ url, status: patched.status }).toEqual({ url, status: 200 });
      expect(patched.body.config.plugins[0].mcpServer.url).toBe(url);
    }
  });

  test('http:// to any other host is 422 at the url, with every other violation of the body', async () => {
    for (const url of ELSEWHERE) {
      for (const [method, path, extra] of [['POST', '/api/v1/agents', { name: 'x' }], ['PATCH', `/api/v1/agents/${agentId}`, {}]] as const) {
        const refused = await p.json<Record<string, any>>(method, path, { body: { ...extra, ...withUrl(url) } });
        expect({ url, method, status: refused.status, pointers: refused.body.errors?.map((e: { pointer: string }) => e.pointer) }).toEqual({ url, method, status: 422, pointers: [POINTER] });
        expect(refused.body.errors[0].message).toContain('loopback');
      }
    }
    const both = await p.json<Record<string, any>>('PATCH', `/api/v1/agents/${agentId}`, { body: { config: { maxTicks: 0, plugins: [{ kind: 'mcp_server', mcpServer: { url: 'http://example.com/mcp' } }] } } });
    expect(both.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/config/maxTicks', POINTER]);
  });
});

describe('without it (the default)', () => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await startTestPlatform();
  });
  afterAll(() => p.close());

  test('every http:// url is 422 at the url, loopback included; https:// to loopback is fine', async () => {
    for (const url of [...LOOPBACK, ...ELSEWHERE]) {
      const refused = await p.json<Record<string, any>>('POST', '/api/v1/agents', { body: { name: 'x', ...withUrl(url) } });
      expect({ url, status: refused.status, pointers: refused.body.errors?.map((e: { pointer: string }) => e.pointer) }).toEqual({ url, status: 422, pointers: [POINTER] });
      expect(refused.body.errors[0].message).toContain('MCP_ALLOW_HTTP_LOOPBACK');
    }
    expect((await p.json('POST', '/api/v1/agents', { body: { name: 'x', ...withUrl('https://127.0.0.1:8443/mcp') } })).status).toBe(201);
  });
});

test('isLoopbackHost takes the WHATWG parser\'s hostnames of this machine only', () => {
  for (const url of LOOPBACK) expect({ url, loopback: isLoopbackHost(new URL(url).hostname) }).toEqual({ url, loopback: true });
  for (const url of ELSEWHERE) expect({ url, loopback: isLoopbackHost(new URL(url).hostname) }).toEqual({ url, loopback: false });
});
