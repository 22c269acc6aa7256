// The access line written directly (Logger.access) is the line pino writes for info('request', …):
// the same members, bindings and request context included, one JSON object a line.
import { expect, test } from 'bun:test';
import { createLogger } from '../../src/core/index.ts';

const capture = (level: 'info' | 'warn', format?: 'json' | 'pretty') => {
  const lines: string[] = [];
  return { lines, log: createLogger(level, 'platform', { write: (line) => void lines.push(line), format }) };
};

test('an access line has what the info line has, bindings and the request context included', () => {
  const { lines, log } = capture('info');
  const runtime = log.child({ origin: 'runtime' });
  const fields = { method: 'GET', route: '/orders/:id', status: 200, durationMs: 0.125, oid: 'a"b\\c', endpointId: 'e1', executionId: 'x1' };
  runtime.within({ requestTag: 't' }, () => {
    runtime.access(fields);
    runtime.info('request', fields);
  });
  expect(lines).toHaveLength(2);
  for (const line of lines) expect(line.endsWith('}\n')).toBe(true);
  const [direct, viaPino] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(typeof direct!.time).toBe('string');
  expect(Number.isNaN(Date.parse(String(direct!.time)))).toBe(false);
  expect({ ...direct, time: 0 }).toEqual({ ...viaPino, time: 0 });
  expect(direct).toMatchObject({ level: 'info', name: 'platform', origin: 'runtime', requestTag: 't', msg: 'request', oid: 'a"b\\c' });
});

test('below info nothing is written; the pretty format prints the access line as text', () => {
  const quiet = capture('warn');
  quiet.log.access({ method: 'GET', route: '/x', status: 200, durationMs: 1, oid: 'o' });
  expect(quiet.lines).toEqual([]);
  const pretty = capture('info', 'pretty');
  pretty.log.child({ origin: 'control-plane' }).access({ method: 'GET', route: '/healthz', status: 200, durationMs: 1, oid: 'o' });
  expect(pretty.lines).toHaveLength(1);
  expect(pretty.lines[0]).toMatch(/^\S+ INFO \[platform\] request \{"origin":"control-plane","method":"GET","route":"\/healthz","status":200,"durationMs":1,"oid":"o"\}\n$/);
});

test('an error is logged by type, message, stack and code only, credentials in URLs masked', () => {
  const { lines, log } = capture('info');
  const failure = Object.assign(new TypeError('Invalid URL: postgres://app:s3cr/et@db:5432/x'), { code: 'ERR_INVALID_URL', input: 'postgres://app:s3cr/et@db:5432/x', params: ['sk-live-key'] });
  log.error('start failed', failure);
  log.error('odd rejection', { msg: 'forged', time: 0, url: 'redis://:hunter2@cache:6379' });
  const [first, second] = lines.map((line) => JSON.parse(line) as Record<string, any>);
  expect(first!.err).toEqual({ type: 'TypeError', message: 'Invalid URL: postgres://app:***@db:5432/x', stack: expect.any(String), code: 'ERR_INVALID_URL' });
  expect(second!.msg).toBe('odd rejection');
  expect(second!.error).toBe('{"msg":"forged","time":0,"url":"redis://:***@cache:6379"}');
  for (const line of lines) for (const secret of ['s3cr', 'hunter2', 'sk-live-key']) expect(line).not.toContain(secret);
});

test('a failed query is logged without its parameters', () => {
  const { lines, log } = capture('info');
  log.error('request failed', new Error('Failed query: select "id" from "api_keys" where "key_hash" = $1\nparams: c4663132ec12deadbeef'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).not.toContain('c4663132ec12deadbeef');
  expect((JSON.parse(lines[0]!) as { err: { message: string } }).err.message).toBe('Failed query: select "id" from "api_keys" where "key_hash" = $1\nparams: (not logged)');
});
