// 422/400 violations name the offending property, once (DESIGN §3): a value that fits no branch of
// a union is explained by the branch it was meant for; a problem found twice is listed once.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestPlatform, type TestPlatform } from './helpers/platform.ts';

let p: TestPlatform;
let endpointId: string;
beforeAll(async () => {
  p = await startTestPlatform();
  const created = await p.json<{ id: string }>('POST', '/api/v1/endpoints', { body: { name: 'e', method: 'GET', path: '/v', staticResponse: { status: 200 } } });
  endpointId = created.body.id;
});
afterAll(() => p.close());

type Problem = { code: string; errors: { pointer: string; message: string }[] };

describe('union-typed Endpoint fields', () => {
  const cases: [Record<string, unknown>, string[]][] = [
    [{ guard: { type: 'inline' } }, ['/guard/schema']],
    [{ guard: { type: 'component' } }, ['/guard/componentId']],
    [{ guard: { type: 'inline', schema: {}, extra: 1 } }, ['/guard/extra']],
    [{ guard: { type: 'nope' } }, ['/guard/type']],
    [{ guard: 5 }, ['/guard']],
    [{ executionPolicy: { mode: 'CALLER', extra: 1 } }, ['/executionPolicy/extra']],
    [{ executionPolicy: { mode: 'CALLER', currentUser: 'NOPE' } }, ['/executionPolicy/currentUser']],
    [{ executionPolicy: { mode: 'X' }, timeoutMs: 0 }, ['/executionPolicy/mode', '/timeoutMs']],
    [{ validationFailure: { body: 1 } }, ['/validationFailure/status']],
    [{ staticResponse: { status: 200, body: 1, extra: 2 } }, ['/staticResponse/extra']],
  ];
  for (const [body, pointers] of cases) {
    test(`PATCH ${JSON.stringify(body)} → 422 at ${pointers.join(', ')}`, async () => {
      const r = await p.json<Problem>('PATCH', `/api/v1/endpoints/${endpointId}`, { body });
      expect(r.status).toBe(422);
      expect(r.body.code).toBe('VALIDATION_FAILED');
      expect(r.body.errors.map((e) => e.pointer).sort()).toEqual([...pointers].sort());
    });
  }

  test('the same on create, and the definition is unchanged by any of them', async () => {
    const r = await p.json<Problem>('POST', '/api/v1/endpoints', { body: { name: 'g', method: 'POST', path: '/g', guard: { type: 'inline' }, staticResponse: { status: 200 } } });
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual([{ pointer: '/guard/schema', message: 'Required property is missing' }]);
    const current = await p.json<Record<string, unknown>>('GET', `/api/v1/endpoints/${endpointId}`);
    expect(current.body).toMatchObject({ version: 0, staticResponse: { status: 200 } });
    expect(current.body.guard ?? null).toBeNull();
  });
});

describe('each violation once', () => {
  test('a path without a leading slash is one error at /path', async () => {
    const r = await p.json<Problem>('POST', '/api/v1/endpoints', { body: { name: 'x', method: 'GET', path: 'hello', staticResponse: { status: 200 } } });
    expect(r.status).toBe(422);
    expect(r.body.errors.filter((e) => e.pointer === '/path')).toHaveLength(1);
  });

  test('an unknown groupBy field on run events is one error at /query/groupBy/0', async () => {
    const agent = await p.json<{ id: string }>('POST', '/api/v1/agents', { body: { name: 'a' } });
    const run = await p.json<{ id: string }>('POST', `/api/v1/agents/${agent.body.id}/runs`, { body: { input: {} } });
    expect(run.status).toBe(201);
    const r = await p.json<Problem>('GET', `/api/v1/agents/runs/${run.body.id}/events?groupBy=bogus`);
    expect(r.status).toBe(400);
    const keys = r.body.errors.map((e) => `${e.pointer} ${e.message}`);
    expect(keys).toContain("/query/groupBy/0 unknown field 'bogus'");
    expect(new Set(keys).size).toBe(keys.length);
    // A default sort the client never asked for says so when a cast makes it impossible.
    const cast = await p.json<Problem>('GET', `/api/v1/agents/runs/${run.body.id}/events?cast=${encodeURIComponent('{"seq":"JSON"}')}`);
    expect(cast.status).toBe(400);
    expect(cast.body.errors).toEqual([expect.objectContaining({ pointer: '/query/sort', message: expect.stringContaining('the default sort of this list') })]);
  });
});
