// api.log(...) lines reach the runtime's log with the Endpoint and execution they came from,
// rate-limited across components.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Logger } from '../../src/core/log.ts';
import { ComponentLog } from '../../runtime/component-log.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

type Entry = { level: string; message: string; fields?: Record<string, unknown> };
const capture = (entries: Entry[]): Logger => ({
  debug: (message, fields) => entries.push({ level: 'debug', message, fields }),
  info: (message, fields) => entries.push({ level: 'info', message, fields }),
  warn: (message, fields) => entries.push({ level: 'warn', message, fields }),
  error: (message) => entries.push({ level: 'error', message }),
  access: (fields) => entries.push({ level: 'info', message: 'request', fields }),
  child: () => capture(entries),
  within: (_, fn) => fn(),
  outside: (fn) => fn(),
});

describe('api.log over a real invocation', () => {
  const entries: Entry[] = [];
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({}, { runtimeLog: capture(entries) });
  });
  afterAll(() => s.close());

  test('each line is logged with the Endpoint id and the execution id', async () => {
    const c = await s.api('POST', '/api/v1/components', { name: 'logger', kind: 'lowcode', elements: [{ name: 'a', code: 'api.log("hello", { n: 1 }); api.log("second"); return 1;' }] });
    const e = await s.endpoint({ method: 'GET', path: '/logs', componentId: c.body.id, popResult: 'a' });
    const r = await s.invoke('GET', '/logs');
    expect(r.status).toBe(200);
    const lines = entries.filter((x) => x.message === 'component log');
    expect(lines.map((x) => x.fields)).toEqual([
      { oid: r.headers.get('x-svc-oid'), endpointId: e.id, executionId: r.headers.get('x-execution-id'), line: `hello ${Bun.inspect({ n: 1 })}` },
      { oid: r.headers.get('x-svc-oid'), endpointId: e.id, executionId: r.headers.get('x-execution-id'), line: 'second' },
    ]);
  });
});

test('over 100 lines a second the rest are dropped and counted', () => {
  const entries: Entry[] = [];
  const log = new ComponentLog(capture(entries));
  log.write('e', { oid: 'o1', executionId: 'x1' }, Array.from({ length: 150 }, (_, i) => `line ${i}`));
  expect(entries.filter((x) => x.message === 'component log')).toHaveLength(100);
  const realNow = Date.now;
  Date.now = () => realNow() + 1500;
  try {
    log.write('e', { oid: 'o2', executionId: 'x2' }, ['later']);
  } finally {
    Date.now = realNow;
  }
  expect(entries.some((x) => x.level === 'warn' && x.message.includes('50 lines dropped'))).toBe(true);
  expect(entries.at(-1)?.fields).toEqual({ oid: 'o2', endpointId: 'e', executionId: 'x2', line: 'later' });
});
