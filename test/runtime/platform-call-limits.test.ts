// api.platform's limits as a component sees them, over real sockets and under both isolations: a
// path must stay under /api/v1/ however it is encoded, and a request too large for the executor's
// line protocol fails only that call (the host, and every invocation it runs, carry on).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startStack, type Stack } from '../helpers/stack.ts';
import { PLATFORM_BODY_LIMIT_BYTES, PLATFORM_PATH_LIMIT_CHARS } from '../../runtime/executor/worker/invocation.ts';
import { HOST_LINE_LIMIT_CHARS } from '../../runtime/executor/contract/limits.ts';
import { CONTROL_PLANE_BODY_LIMIT } from '../../src/core/http/body.ts';

const REFUSED = { status: 400, body: { code: 'BAD_REQUEST', detail: 'api.platform: the path must start with /api/v1/ and stay under it' } };
const FIVE_MIB = 5 * 1024 * 1024;

// Every one of these leaves /api/v1/ once normalised (most land on /readyz or /healthz).
const TRAVERSALS = [
  '/api/v1/../healthz',
  '/api/v1/%2e%2e/%2e%2e/readyz',
  '/api/v1/%2E%2E/%2E%2E/readyz',
  '/api/v1/%2E%2e/%2e%2E/readyz',
  '/api/v1/.%2e/%2e./readyz',
  '/api/v1/agents/%2e%2e/%2e%2e/%2e%2e/readyz',
  '/api/v1/./%2e%2e/x/../../readyz',
  '/api/v1/%2e%2e',
  '/api/v1/%2e%2e/%2e%2e/readyz?x=1',
  '/api/v1/%2e%2e%2f%2e%2e%2freadyz',
  '/api/v1/..%2F..%2Freadyz',
  '/api/v1/..\\..\\readyz',
  '/api/v1/%5c..%5c..%5creadyz',
  '/api/v1/.\t./.\t./readyz',
  '/api/v1/..\n/readyz',
];

describe.each(['process', 'worker'] as const)('api.platform limits (%s isolation)', (isolation) => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({}, { isolation });
    // One component calls api.platform with whatever the request asks for; `pad` makes the body
    // { name: <pad × char> } of a chosen size, built inside the component.
    const probe = await component(`const { method, path, pad, char } = api.input().body;
      const body = pad === undefined ? undefined : { name: (char ?? 'x').repeat(pad) };
      try { return await api.platform(method, path, body); } catch (e) { return { error: e.message }; }`);
    await s.endpoint({ method: 'POST', path: '/probe', componentId: probe, popResult: 'r' });
    const slow = await component(`await Bun.sleep(api.input().body.ms); return 'slow done';`);
    await s.endpoint({ method: 'POST', path: '/slow', componentId: slow, popResult: 'r' });
  }, 30_000);
  afterAll(() => s.close());

  async function component(code: string): Promise<string> {
    const r = await s.api('POST', '/api/v1/components', { name: `c${crypto.randomUUID().slice(0, 6)}`, kind: 'lowcode', elements: [{ name: 'r', code }] });
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
    return r.body.id as string;
  }
  async function probe(call: { method: string; path: string; pad?: number; char?: string }): Promise<unknown> {
    const r = await s.invoke('POST', '/probe', { body: call });
    expect(r.status).toBe(200);
    return r.json();
  }
  /** Runs `during` while a slow invocation is in flight (on the same host: the stack has one), and checks it still answers. */
  async function whileAnotherRuns<T>(during: () => Promise<T>): Promise<T> {
    const slow = s.invoke('POST', '/slow', { body: { ms: 1500 } });
    await Bun.sleep(300);
    const out = await during();
    const r = await slow;
    expect(r.status).toBe(200);
    expect(await r.json()).toBe('slow done');
    return out;
  }

  test('the body limit stays under the control plane\'s and leaves the line room for the longest path', () => {
    expect(PLATFORM_BODY_LIMIT_BYTES).toBeLessThanOrEqual(CONTROL_PLANE_BODY_LIMIT);
    // Worst case: every path character escaped as \u00XX, plus the call's envelope.
    expect(PLATFORM_BODY_LIMIT_BYTES + 6 * PLATFORM_PATH_LIMIT_CHARS + 200).toBeLessThan(HOST_LINE_LIMIT_CHARS);
  });

  test.each(TRAVERSALS)('a path that leaves /api/v1/ is refused: %p', async (path) => {
    expect(await probe({ method: 'GET', path })).toEqual(REFUSED);
  });

  test('a legal path still reaches the control plane as the execution identity', async () => {
    const me = (await probe({ method: 'GET', path: '/api/v1/me' })) as { status: number; body: { id: string } };
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(s.platform.boot.adminPrincipalId);
    // Dot segments that stay under /api/v1/ are resolved, and the call goes to the resolved path.
    expect(await probe({ method: 'GET', path: '/api/v1/components/%2e%2e/me' })).toEqual(me);
    expect(await probe({ method: 'GET', path: '/api/v1/me?note=../..' })).toEqual(me);
  });

  test('an oversized body rejects inside the component; the invocation running beside it and the next call on the Endpoint succeed', async () => {
    const out = await whileAnotherRuns(() => probe({ method: 'POST', path: '/api/v1/agents', pad: FIVE_MIB }));
    expect(out).toEqual({ error: `api.platform: the request body exceeds ${PLATFORM_BODY_LIMIT_BYTES} bytes when serialized` });
    const created = (await probe({ method: 'POST', path: '/api/v1/workspaces', pad: 12, char: 'w' })) as { status: number; body: { name: string } };
    expect(created).toMatchObject({ status: 201, body: { name: 'w'.repeat(12) } });
  }, 30_000);

  test('the limit counts UTF-8 bytes, and a body exactly at it goes through even with the longest, most escaped path', async () => {
    // {"name":"…"} adds 11 characters to the padding.
    const overInBytes = await probe({ method: 'POST', path: '/api/v1/agents', pad: Math.ceil(PLATFORM_BODY_LIMIT_BYTES / 2), char: 'é' });
    expect(overInBytes).toEqual({ error: `api.platform: the request body exceeds ${PLATFORM_BODY_LIMIT_BYTES} bytes when serialized` });
    expect(await probe({ method: 'POST', path: '/api/v1/agents', pad: PLATFORM_BODY_LIMIT_BYTES - 10 })).toEqual({
      error: `api.platform: the request body exceeds ${PLATFORM_BODY_LIMIT_BYTES} bytes when serialized`,
    });
    // Sent whole (the control-plane refuses the path, so nothing is created), and no line is too long.
    const longestPath = '/api/v1/' + '\u0001'.repeat(PLATFORM_PATH_LIMIT_CHARS - 8);
    const atLimit = await whileAnotherRuns(() => probe({ method: 'POST', path: longestPath, pad: PLATFORM_BODY_LIMIT_BYTES - 11 }));
    expect(atLimit).toEqual(REFUSED);
    expect(await probe({ method: 'POST', path: longestPath + 'x' })).toEqual({ error: `api.platform: the path exceeds ${PLATFORM_PATH_LIMIT_CHARS} characters` });
  }, 30_000);

  test('a component cannot slip an oversized body past the check by replacing globals or with a getter', async () => {
    const tampering = await component(`JSON.stringify = () => '{}'; Buffer.byteLength = () => 0; Object.setPrototypeOf = (o) => o;
      try { await api.platform('POST', '/api/v1/agents', { name: 'x'.repeat(${FIVE_MIB}) }); return 'sent'; } catch (e) { return e.message; }`);
    await s.endpoint({ method: 'POST', path: '/tampering', componentId: tampering, popResult: 'r' });
    const tampered = await whileAnotherRuns(() => s.invoke('POST', '/tampering', { body: {} }));
    expect(await tampered.json()).toBe(`api.platform: the request body exceeds ${PLATFORM_BODY_LIMIT_BYTES} bytes when serialized`);

    // The getter answers small when checked and huge afterwards: what is sent is what was checked.
    const growing = await component(`let reads = 0; const name = 'g' + api.executionId.slice(0, 8);
      const body = { get name() { reads++; return reads === 1 ? name : 'x'.repeat(${FIVE_MIB}); } };
      const r = await api.platform('POST', '/api/v1/workspaces', body); return { status: r.status, name: r.body.name, expected: name };`);
    await s.endpoint({ method: 'POST', path: '/growing', componentId: growing, popResult: 'r' });
    const grown = await whileAnotherRuns(() => s.invoke('POST', '/growing', { body: {} }));
    expect(grown.status).toBe(200);
    const seen = (await grown.json()) as { status: number; name: string; expected: string };
    expect(seen.status).toBe(201);
    expect(seen.name).toBe(seen.expected);
  }, 30_000);
});
