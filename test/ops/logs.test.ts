// The log as an operator reads it (DESIGN §12): `npm start` in a child process, requests on both
// origins, then every line it wrote is one JSON object with time, level and msg; each request has
// one access line with method, route template, status, durationMs and oid (an invocation's with
// executionId and endpointId); and no API key, JWT, secret value or METRICS_TOKEN shows anywhere.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createLogger } from '../../src/core/log.ts';
import { ADMIN, startServer, type Server } from '../blackbox/server.ts';

const METRICS_TOKEN = 'log-test-metrics-token-5f0c2e7d';
const SECRET_VALUE = 'mcp-password-never-logged-7b1d9e';
const QUERY_SECRET = 'query-credential-never-logged-3a8f';

type Line = Record<string, unknown> & { time: string; level: string; msg: string };

/** Every line of `text` parsed; a line that is no JSON object fails the test naming it. */
function jsonLines(text: string): Line[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(l);
      } catch {
        throw new Error(`not a JSON line: ${l}`);
      }
      expect(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)).toBe(true);
      return parsed as Line;
    });
}

describe('npm start writes JSON lines', () => {
  let s: Server;
  const credentials: string[] = [ADMIN, SECRET_VALUE, QUERY_SECRET, METRICS_TOKEN];
  let invoked: { oid: string; executionId: string; endpointId: string };
  let cpOid = '';

  beforeAll(async () => {
    s = await startServer({ METRICS_TOKEN });
    // A bearer key, a JWT made from it and used, a new API key, a secret, a failed login (a wrong
    // key and a malformed JWT), and a metrics scrape with its token.
    const me = await s.api('GET', '/me', undefined, ADMIN, { 'x-svc-oid': 'log-test-me' });
    expect(me.status).toBe(200);
    cpOid = 'log-test-me';
    const token = await s.api('POST', '/auth/token', {});
    expect(token.status).toBe(200);
    credentials.push(token.body.token);
    expect((await s.api('GET', '/me', undefined, token.body.token)).status).toBe(200);
    const key = await s.api('POST', '/api-keys', { name: 'log-test' });
    expect(key.status).toBe(201);
    credentials.push(key.body.key);
    expect((await s.api('POST', '/secrets', { name: 'mcp', value: SECRET_VALUE })).status).toBe(201);
    expect((await s.api('GET', '/me', undefined, 'sk-wrong-key-for-a-failed-login-0123456789')).status).toBe(401);
    expect((await s.api('POST', '/auth/token', {}, 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.forged-signature')).status).toBe(401);
    expect((await fetch(`${s.cp}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(200);

    // An invocation that writes a component log line, with a credential in the query.
    const c = await s.api('POST', '/components', { name: 'chatty', kind: 'lowcode', elements: [{ name: 'r', code: 'api.log("hello from the component"); return 1;', visible: true }] });
    const e = await s.api('POST', '/endpoints', { name: 'chatty', method: 'GET', path: '/chatty/:id', componentId: c.body.id, popResult: 'r' });
    expect((await s.api('POST', `/endpoints/${e.body.id}/activate`)).status).toBe(200);
    let r = await s.invoke('GET', `/chatty/7?token=${QUERY_SECRET}`, undefined, ADMIN, { 'x-svc-oid': 'log-test-invoke' });
    for (let i = 0; r.status !== 200 && i < 50; i++) {
      await Bun.sleep(100);
      r = await s.invoke('GET', `/chatty/7?token=${QUERY_SECRET}`, undefined, ADMIN, { 'x-svc-oid': 'log-test-invoke' });
    }
    expect(r.status).toBe(200);
    invoked = { oid: 'log-test-invoke', executionId: r.headers.get('x-execution-id')!, endpointId: e.body.id };
    expect((await s.invoke('GET', '/chatty/8', undefined, null, { 'x-svc-oid': 'log-test-refused' })).status).toBe(401);
    // Lines leave once per event-loop turn: give the last ones a moment.
    await Bun.sleep(200);
  });
  afterAll(() => s?.stop());

  test('every line on stderr and stdout is a JSON object with time, level and msg', () => {
    const lines = [...jsonLines(s.log()), ...jsonLines(s.output())];
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) {
      expect(Number.isNaN(Date.parse(line.time))).toBe(false);
      expect(['debug', 'info', 'warn', 'error']).toContain(line.level);
      expect(typeof line.msg).toBe('string');
    }
  });

  test('one access line per request at info: method, route template, status, durationMs, oid', () => {
    const access = jsonLines(s.log()).filter((l) => l.msg === 'request');
    const me = access.filter((l) => l.oid === cpOid);
    expect(me).toHaveLength(1);
    expect(me[0]).toMatchObject({ level: 'info', method: 'GET', route: '/api/v1/me', status: 200, origin: 'control-plane' });
    for (const line of access) {
      expect(line.level).toBe('info');
      expect(typeof line.method).toBe('string');
      expect(typeof line.route).toBe('string');
      expect(typeof line.status).toBe('number');
      expect(typeof line.durationMs).toBe('number');
      expect(typeof line.oid).toBe('string');
    }
    // Routes are templates: no raw id, path or query.
    const routes = access.map((l) => String(l.route));
    expect(routes).toContain('/chatty/:id');
    expect(routes).toContain('/metrics');
    expect(routes.some((r) => r.includes('/chatty/7') || r.includes('?'))).toBe(false);
    const refused = access.filter((l) => l.oid === 'log-test-refused');
    expect(refused).toEqual([expect.objectContaining({ route: 'unmatched', status: 401, origin: 'runtime' })]);
  });

  test("an invocation's lines carry its oid, executionId and endpointId", () => {
    const mine = jsonLines(s.log()).filter((l) => l.executionId === invoked.executionId);
    expect(mine.map((l) => l.msg).sort()).toEqual(['component log', 'request']);
    for (const line of mine) expect(line).toMatchObject(invoked);
    expect(mine.find((l) => l.msg === 'request')).toMatchObject({ method: 'GET', route: '/chatty/:id', status: 200 });
  });

  test('no API key, JWT, secret value or metrics token appears in any line', () => {
    const all = s.log() + s.output();
    for (const credential of credentials) expect(all).not.toContain(credential);
    // Not even the part of a JWT that is not its signature.
    const jwt = credentials.find((c) => c.startsWith('eyJ'))!;
    expect(all).not.toContain(jwt.split('.')[1]!);
    expect(all).not.toContain('forged-signature');
    expect(all).not.toMatch(/[Bb]earer \S/);
  });
});

describe('the logger', () => {
  test('lines written within a request context carry its fields, through awaits; work started outside it does not', async () => {
    const lines: Line[] = [];
    const log = createLogger('info', 'test', { write: (l) => void lines.push(JSON.parse(l) as Line) });
    await log.within({ oid: 'o-1' }, async () => {
      log.info('first');
      await Bun.sleep(1);
      log.child({ runId: 'r-1' }).warn('second', { n: 1 });
      log.outside(() => log.info('background'));
    });
    log.info('after');
    expect(lines.map((l) => [l.msg, l.level, l.oid, l.runId])).toEqual([
      ['first', 'info', 'o-1', undefined],
      ['second', 'warn', 'o-1', 'r-1'],
      ['background', 'info', undefined, undefined],
      ['after', 'info', undefined, undefined],
    ]);
  });

  test('an Error is logged with its type, message and stack; LOG_LEVEL filters; pretty is one text line', () => {
    const lines: string[] = [];
    const json = createLogger('warn', 'test', { write: (l) => void lines.push(l) });
    json.info('dropped');
    json.error('failed', new TypeError('boom'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', msg: 'failed', err: { type: 'TypeError', message: 'boom', stack: expect.stringContaining('TypeError: boom') } });
    const text: string[] = [];
    createLogger('info', 'cp', { format: 'pretty', write: (l) => void text.push(l) }).info('hello', { a: 1 });
    expect(text).toEqual([expect.stringMatching(/^\S+Z INFO \[cp\] hello \{"a":1\}\n$/)]);
  });
});
