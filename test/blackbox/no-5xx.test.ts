// Black-box probes for answers of 500 and up, hangs and crashes on both origins: malformed
// percent-encoding, prototype keys, deep and NUL-bearing queries, junk credentials. All held: every
// probe gets a 4xx problem+json (or the component's 200), and both origins stay ready.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { ADMIN, ON_DENO, rawRequest, refusedByDeno, startServer, statusOf, type Server } from './server.ts';

let s: Server;
let componentId = '';
beforeAll(async () => {
  s = await startServer();
  const dev = await s.user(['COMPONENT_ADMIN', 'ENDPOINT_ADMIN']);
  const c = await s.api('POST', '/components', { name: 'echo', kind: 'lowcode', elements: [{ name: 'r', code: 'return api.input().query', visible: true }] }, dev.key);
  componentId = c.body.id;
  const e = await s.api('POST', '/endpoints', { name: 'e', method: 'GET', path: '/in/:id', componentId, guard: { type: 'inline', schema: { type: 'object', properties: { q: { type: 'string', maxLength: 5 } } } } }, dev.key);
  expect((await s.api('POST', `/endpoints/${e.body.id}/activate`, undefined, dev.key)).status).toBe(200);
});
afterAll(() => s.stop());

const auth = `Authorization: Bearer ${ADMIN}\r\n`;
/** Past Deno's own request-head limits (server.ts ON_DENO): its server refuses the request, not the platform. */
const DENO_REFUSES = -1;
const overDenoLimit = (status: number) => (ON_DENO ? DENO_REFUSES : status);
const probes = (): [origin: 'runtime' | 'cp', target: string, headers: string, expected: number][] => [
  ['runtime', '/in/%FF%C0%AF', auth, 404],
  ['runtime', '/in/1?q=%E0%A4%A', auth, 200],
  ['runtime', '/in/1?%FF=1', auth, 200],
  ['runtime', '/in/%', auth, 404],
  ['runtime', '/in/1?__proto__[x]=1&constructor[prototype][y]=2', auth, 200],
  ['runtime', `/in/1?a${'[a]'.repeat(3000)}=1`, auth, 200],
  ['runtime', '/in/%00', auth, 200],
  ['runtime', '/in/../../etc', auth, 404],
  ['runtime', '/in/1', `x-svc-oid: ${'z'.repeat(5000)}\r\n${auth}`, 200],
  ['runtime', '/in/1', `Authorization: Bearer ${'x'.repeat(100_000)}\r\n`, overDenoLimit(401)],
  ['runtime', '/in/1', 'Authorization: Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.\r\n', 401],
  ['runtime', '/in/1', 'Authorization: Bearer a.b.c\r\n', 401],
  ['cp', '/api/v1/components/%FF', auth, 404],
  ['cp', '/api/v1/agents?filter=%FF', auth, 400],
  ['cp', `/api/v1/components/${componentId}/revisions/%E0%A4%A/approval`, auth, 404],
  ['cp', `/api/v1/components/${componentId}/revisions/${'a'.repeat(100_000)}/approval`, auth, overDenoLimit(404)],
  ['cp', '/api/v1/me', 'Authorization: Bearer a.b.c\r\n', 401],
  ['cp', '/api/v1/components?sort=%5B%5B%5B', auth, 400],
  ['cp', `/api/v1/components/${componentId}/revisions?filter={"field":"approvals","op":"eq","value":1}`, auth, 400],
];

test('malformed targets and credentials get 4xx answers, never 5xx, a hang or a crash', async () => {
  for (const [origin, target, headers, expected] of probes()) {
    const raw = await rawRequest(origin === 'cp' ? s.cp : s.runtime, `GET ${target} HTTP/1.1\r\nHost: x\r\n${headers}\r\n`, 5000);
    const seen = expected === DENO_REFUSES && refusedByDeno(raw) ? DENO_REFUSES : statusOf(raw);
    expect(`${target.slice(0, 80)} ${seen}`).toBe(`${target.slice(0, 80)} ${expected}`);
    if (seen === DENO_REFUSES) continue; // Deno's bare refusal: no problem body, no oid
    if (expected >= 400) expect(raw).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    expect(raw).toMatch(/\r\nx-svc-oid: /i);
  }
  // A method fetch forbids in a new Request, with a Host too short for Elysia (Deno answered a bare 500).
  for (const method of ['TRACE']) {
    const raw = await rawRequest(s.cp, `${method} /healthz HTTP/1.1\r\nHost: x\r\n\r\n`, 5000);
    expect(`${method} ${[404, 405].includes(statusOf(raw))}`).toBe(`${method} true`);
    expect(raw).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    expect(raw).toMatch(/\r\nx-svc-oid: /i);
  }
  const approve = await rawRequest(s.cp, `POST /api/v1/components/%C0/revisions/%C0/approve HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n${auth}\r\n`);
  expect(statusOf(approve)).toBe(404);
  expect(s.alive()).toBe(true);
  for (const origin of [s.cp, s.runtime]) expect((await fetch(`${origin}/readyz`)).status).toBe(200);
  expect(s.log()).not.toMatch(/"level":"error"/);
});
