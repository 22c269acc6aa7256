// 405 with a truthful Allow on every control-plane path (issue #24 point 3): literal routes such as
// /endpoints/openapi and /endpoints/settings never fall into /endpoints/{endpointId}.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform();
});
afterAll(() => p.close());

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

test('PATCH, PUT, POST and DELETE on /endpoints/openapi are 405 with Allow: GET, HEAD', async () => {
  for (const method of ['PATCH', 'PUT', 'POST', 'DELETE']) {
    const r = await p.call(method, '/api/v1/endpoints/openapi', { body: {} });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD');
    expect(((await r.json()) as { code: string }).code).toBe('METHOD_NOT_ALLOWED');
  }
  const settings = await p.call('PATCH', '/api/v1/endpoints/settings', { body: {} });
  expect(settings.status).toBe(405);
  expect(settings.headers.get('allow')).toBe('DELETE, GET, HEAD, PUT');
  // Without a credential it is still 401 first.
  expect((await p.call('PATCH', '/api/v1/endpoints/openapi', { key: null, body: {} })).status).toBe(401);
});

test("on every route path, exactly its template's methods are served; the others are 405 with that Allow", async () => {
  const templates = new Map<string, Set<string>>();
  for (const route of p.app.routes) {
    if (!route.path.startsWith('/api/v1/') || route.path.includes('/docs') || !/^[A-Z]+$/.test(route.method)) continue;
    const methods = templates.get(route.path) ?? new Set<string>();
    methods.add(route.method);
    templates.set(route.path, methods);
  }
  expect(templates.size).toBeGreaterThan(30);
  for (const [template, methods] of templates) {
    const path = template.replace(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000000');
    const allow = [...methods, ...(methods.has('GET') ? ['HEAD'] : [])].sort().join(', ');
    for (const method of METHODS) {
      const r = await p.call(method, path, method === 'GET' ? {} : { body: {} });
      if (methods.has(method)) expect({ template, method, status: r.status === 405 ? 405 : 'served' }).toEqual({ template, method, status: 'served' });
      else expect({ template, method, status: r.status, allow: r.headers.get('allow') }).toEqual({ template, method, status: 405, allow });
    }
  }
});
