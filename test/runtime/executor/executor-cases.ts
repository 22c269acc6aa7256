// The behaviour every executor must show, whatever its isolation; run by process.test.ts and
// worker.test.ts against their own executor (see hono's common.case.test.ts for the pattern).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Executor, PlatformCall } from '../../../runtime/executor/index.ts';
import { RESULT_LIMIT_BYTES } from '../../../runtime/executor/index.ts';
import { baseInput, both, failureOf, lowcode, node, request, resultOf } from './helpers.ts';

export function executorCases(label: string, create: () => Promise<Executor>): void {
  describe(`executor (${label})`, () => {
    let executor: Executor;
    beforeAll(async () => {
      executor = await create();
    });
    afterAll(async () => {
      await executor.close();
    });

    describe.each(['lowcode', 'node'] as const)('%s components', (kind) => {
      test('api.input() carries the whole input', async () => {
        const input = baseInput({ agentTool: { entrypoint: 'lookup', inputs: { a: 1 }, args: { q: 'x' } } });
        const out = await executor.execute(request(both('return api.input();')[kind], { input }));
        expect(resultOf(out)).toEqual(input);
      });

      test('currentUser, executionId and oid', async () => {
        const req = request(both('return { user: api.currentUser(), executionId: api.executionId, oid: api.oid };')[kind]);
        const out = await executor.execute(req);
        expect(resultOf(out)).toEqual({ user: req.currentUser, executionId: req.executionId, oid: 'oid-test' });
      });

      test('api.result with visibility, api.log lines', async () => {
        const out = await executor.execute(
          request(both(`api.result('shown', 1); api.result('hidden', { h: true }, { visible: false }); api.result('shown', 2);
            api.log('one', 2, { three: 3 }); api.log('second line'); return undefined;`)[kind]),
        );
        if (out.kind !== 'results') throw new Error(JSON.stringify(out));
        // Hidden results stay in the Worker: no response mode shows them.
        expect(out.results).toEqual([{ name: 'shown', json: '2', visible: true }]);
        expect(out.logs).toHaveLength(2);
        expect(out.logs[0]).toStartWith('one 2 ');
        expect(out.logs[0]).toContain('three: 3');
        expect(out.logs[1]).toBe('second line');
      });

      test('api.throw ends the execution with any status and body', async () => {
        const out = await executor.execute(
          request(both(`api.log('before'); api.throw(409, { code: 'TAKEN' }); api.result('never', 1);`)[kind]),
        );
        expect(out).toEqual({ kind: 'thrown', status: 409, bodyJson: '{"code":"TAKEN"}', logs: ['before'] });
      });

      test('a component replacing JSON.stringify cannot garble its outcome (values are serialized by the real one)', async () => {
        const out = await executor.execute(request(both(`JSON.stringify = () => '"forged"\\t1'; api.result('a', { v: [1, 2] }); return undefined;`)[kind]));
        expect(out).toMatchObject({ kind: 'results', results: [{ name: 'a', json: '{"v":[1,2]}', visible: true }] });
      });

      // Under worker isolation `bun test` itself ends Workers that throw outside an invocation (they
      // share its process); worker.test.ts checks that isolation in a child process instead.
      test.skipIf(label === 'worker')('an error no invocation awaited (timer, unawaited rejection) is the running invocation\'s 500; the Worker serves on', async () => {
        const timer = both(`setTimeout(() => { throw new Error('slow timer throw'); }, 10); await Bun.sleep(300); return 1;`)[kind];
        expect(failureOf(await executor.execute(request(timer)))).toMatchObject({ status: 500, code: 'COMPONENT_ERROR', message: 'slow timer throw' });
        const rejection = both(`Promise.reject(new Error('unhandled rejection')); await Bun.sleep(300); return 1;`)[kind];
        expect(failureOf(await executor.execute(request(rejection)))).toMatchObject({ status: 500, code: 'COMPONENT_ERROR', message: 'unhandled rejection' });
        // The same Worker answers the next invocation normally.
        const module = kind === 'node' ? node(`let calls = 0; export default async (api) => { calls++; if (calls === 1) setTimeout(() => { throw new Error('stray'); }, 5); await Bun.sleep(100); return calls; }`) : lowcode({ name: 'default', code: `globalThis.calls = (globalThis.calls ?? 0) + 1; if (globalThis.calls === 1) setTimeout(() => { throw new Error('stray'); }, 5); await Bun.sleep(100); return globalThis.calls;` });
        expect(failureOf(await executor.execute(request(module))).code).toBe('COMPONENT_ERROR');
        expect(resultOf(await executor.execute(request(module)))).toBe(2);
      });

      test('timers an invocation leaves behind are stopped once it is answered', async () => {
        const rev = both(`globalThis.runs = (globalThis.runs ?? 0) + 1; if (globalThis.runs === 1) setTimeout(() => { for (;;) {} }, 50); setInterval(() => { globalThis.ticks = (globalThis.ticks ?? 0) + 1; }, 5); return globalThis.ticks ?? 0;`)[kind];
        expect(resultOf(await executor.execute(request(rev)))).toBe(0);
        await Bun.sleep(200);
        // Neither the loop (it would make this a 504) nor the interval ran after the first answer.
        const next = await executor.execute(request(rev, { timeoutMs: 2000 }));
        expect(resultOf(next)).toBe(0);
      });

      test('a nested Worker an invocation leaves behind is stopped once it is answered', async () => {
        const spinner = `onmessage = (e) => { const a = e.data; for (;;) Atomics.add(a, 0, 1); };`;
        const rev = both(`
          if (!globalThis.counter) {
            globalThis.counter = new Int32Array(new SharedArrayBuffer(4));
            const w = new Worker(URL.createObjectURL(new Blob([${JSON.stringify(spinner)}], { type: 'text/javascript' })));
            w.postMessage(globalThis.counter);
            for (let i = 0; i < 100 && Atomics.load(globalThis.counter, 0) === 0; i++) await Bun.sleep(20);
            return Atomics.load(globalThis.counter, 0) > 0;
          }
          const before = Atomics.load(globalThis.counter, 0);
          await Bun.sleep(150);
          return Atomics.load(globalThis.counter, 0) - before;`)[kind];
        expect(resultOf(await executor.execute(request(rev)))).toBe(true);
        await Bun.sleep(200);
        // The spinning Worker no longer counts.
        expect(resultOf(await executor.execute(request(rev)))).toBe(0);
      }, 20_000);

      test('api.throw caught by the component still decides the outcome', async () => {
        const out = await executor.execute(request(both(`try { api.throw(451, 'gone'); } catch {} return 'ignored';`)[kind]));
        expect(out).toMatchObject({ kind: 'thrown', status: 451, bodyJson: '"gone"' });
      });

      test('api.throw with an invalid status is a component error', async () => {
        const f = failureOf(await executor.execute(request(both(`api.throw(99, {});`)[kind])));
        expect(f).toMatchObject({ status: 500, code: 'COMPONENT_ERROR' });
      });

      test('api.platform round-trips through the server as the execution identity', async () => {
        const calls: PlatformCall[] = [];
        const out = await executor.execute(
          request(both(`const a = await api.platform('POST', '/api/v1/things', { n: 1 });
            const b = await api.platform('GET', '/api/v1/me'); return { a, b };`)[kind], {
            platform: async (call) => {
              calls.push(call);
              return call.method === 'POST' ? { status: 201, body: { created: call.body } } : { status: 403, body: { code: 'FORBIDDEN' } };
            },
          }),
        );
        expect(resultOf(out)).toEqual({ a: { status: 201, body: { created: { n: 1 } } }, b: { status: 403, body: { code: 'FORBIDDEN' } } });
        expect(calls).toEqual([{ method: 'POST', path: '/api/v1/things', body: { n: 1 } }, { method: 'GET', path: '/api/v1/me', body: undefined }]);
      });

      test('api.platform without a server callback, or with a failing one, rejects inside the component', async () => {
        const code = `try { await api.platform('GET', '/x'); return 'no error'; } catch (e) { return e.message; }`;
        const none = await executor.execute(request(both(code)[kind]));
        expect(resultOf(none)).toContain('not available');
        const failing = await executor.execute(request(both(code)[kind], { platform: () => Promise.reject(new Error('db down')) }));
        expect(resultOf(failing)).toBe('the platform call failed');
      });

      test('an api kept past its invocation makes no platform call: it rejects at once, and the new invocation runs on', async () => {
        const code = `if (api.input().query.keep) { globalThis.kept = api; return 'kept'; }
          try { await globalThis.kept.platform('GET', '/api/v1/me'); return 'called'; } catch (e) { return e.message; }`;
        const revision = both(code)[kind];
        const calls: PlatformCall[] = [];
        const platform = async (call: PlatformCall) => {
          calls.push(call);
          return { status: 200, body: {} };
        };
        expect(resultOf(await executor.execute(request(revision, { input: { ...request(revision).input, query: { keep: '1' } }, platform })))).toBe('kept');
        const later = await executor.execute(request(revision, { input: { ...request(revision).input, query: {} }, platform, timeoutMs: 5_000 }));
        expect(resultOf(later)).toBe('api.platform: the invocation this api belongs to has ended');
        expect(calls).toEqual([]);
      });

      test('an uncaught error is COMPONENT_ERROR with its message only', async () => {
        const f = failureOf(await executor.execute(request(both(`function deep() { throw new TypeError('bad input: ' + api.input().params.id); } deep();`)[kind])));
        expect(f).toEqual({ kind: 'failed', status: 500, code: 'COMPONENT_ERROR', message: 'bad input: 42' });
      });

      test('a thrown non-Error value still gives a message', async () => {
        const f = failureOf(await executor.execute(request(both(`throw 'plain string';`)[kind])));
        expect(f).toEqual({ kind: 'failed', status: 500, code: 'COMPONENT_ERROR', message: 'plain string' });
      });

      test('results over 1 MiB are RESULT_TOO_LARGE; just under passes', async () => {
        const big = failureOf(await executor.execute(request(both(`return 'x'.repeat(${RESULT_LIMIT_BYTES + 10});`)[kind])));
        expect(big).toMatchObject({ status: 502, code: 'RESULT_TOO_LARGE' });
        const multibyte = failureOf(await executor.execute(request(both(`return 'é'.repeat(${Math.ceil(RESULT_LIMIT_BYTES / 2) + 10});`)[kind])));
        expect(multibyte.code).toBe('RESULT_TOO_LARGE');
        const fits = await executor.execute(request(both(`return 'x'.repeat(${RESULT_LIMIT_BYTES - 1000});`)[kind]));
        expect(String(resultOf(fits))).toHaveLength(RESULT_LIMIT_BYTES - 1000);
        // The limit is on what a response can carry: exactly 1 MiB of JSON (a string and its quotes) fits.
        const exact = await executor.execute(request(both(`return 'x'.repeat(${RESULT_LIMIT_BYTES - 2});`)[kind]));
        expect(String(resultOf(exact))).toHaveLength(RESULT_LIMIT_BYTES - 2);
      });

      test('many or long result names are RESULT_TOO_LARGE too, and the host serves on', async () => {
        const many = failureOf(await executor.execute(request(both(`for (let i = 0; i < 20000; i++) api.result('n'.repeat(100) + i, i); return undefined;`)[kind])));
        expect(many).toMatchObject({ status: 502, code: 'RESULT_TOO_LARGE', message: expect.stringContaining('result names') });
        const long = failureOf(await executor.execute(request(both(`api.result('n'.repeat(${RESULT_LIMIT_BYTES + 10}), 1); return undefined;`)[kind])));
        expect(long.code).toBe('RESULT_TOO_LARGE');
        expect(resultOf(await executor.execute(request(both(`return 'still here';`)[kind])))).toBe('still here');
      });

      test('hidden results neither count towards the limit nor leave the Worker; visible ones add up', async () => {
        const hidden = await executor.execute(request(both(`api.result('big', 'h'.repeat(${RESULT_LIMIT_BYTES + 10}), { visible: false }); api.result('small', 1); return undefined;`)[kind]));
        expect(hidden).toMatchObject({ kind: 'results', results: [{ name: 'small', json: '1', visible: true }] });
        // Three values of ~350 000 characters each: under the limit as UTF-16 units, over it in UTF-8.
        const third = Math.floor(RESULT_LIMIT_BYTES / 3);
        const multibyte = failureOf(await executor.execute(request(both(`for (const n of ['a', 'b', 'c']) api.result(n, 'é'.repeat(${third})); return undefined;`)[kind])));
        expect(multibyte.code).toBe('RESULT_TOO_LARGE');
      });

      test('only the results the response mode shows leave the Worker and count towards the limit', async () => {
        const code = `api.result('big', 'x'.repeat(${RESULT_LIMIT_BYTES + 10})); api.result('small', 1); api.result('odd', { n: 10n }); return undefined;`;
        // popResult: the popped one alone; the others are neither serialized nor counted.
        const popped = await executor.execute(request(both(code)[kind], { results: { only: 'small' } }));
        expect(popped).toMatchObject({ kind: 'results', results: [{ name: 'small', json: '1', visible: true }] });
        expect((popped as { results: unknown[] }).results).toHaveLength(1);
        // noResult: nothing at all.
        expect(await executor.execute(request(both(code)[kind], { results: 'none' }))).toMatchObject({ kind: 'results', results: [] });
        // Popping the big one, or showing all, still hits the limit.
        expect(failureOf(await executor.execute(request(both(code)[kind], { results: { only: 'big' } }))).code).toBe('RESULT_TOO_LARGE');
        expect(failureOf(await executor.execute(request(both(code)[kind]))).code).toBe('RESULT_TOO_LARGE');
      });

      test('replacing Buffer.byteLength inside the component does not lift the limit', async () => {
        const code = `Buffer.byteLength = () => 0; globalThis.Buffer = { byteLength: () => 0 }; return '€'.repeat(${Math.ceil(RESULT_LIMIT_BYTES / 3) + 10});`;
        expect(failureOf(await executor.execute(request(both(code)[kind]))).code).toBe('RESULT_TOO_LARGE');
        const thrown = `Buffer.byteLength = () => 0; api.throw(400, '€'.repeat(${Math.ceil(RESULT_LIMIT_BYTES / 3) + 10}));`;
        expect(failureOf(await executor.execute(request(both(thrown)[kind]))).code).toBe('RESULT_TOO_LARGE');
      });

      test('an api.throw body over 1 MiB is RESULT_TOO_LARGE', async () => {
        const f = failureOf(await executor.execute(request(both(`api.throw(400, 'x'.repeat(${RESULT_LIMIT_BYTES + 10}));`)[kind])));
        expect(f.code).toBe('RESULT_TOO_LARGE');
      });

      test('a result JSON cannot represent is a component error', async () => {
        const f = failureOf(await executor.execute(request(both(`return { n: 10n };`)[kind])));
        expect(f.code).toBe('COMPONENT_ERROR');
        expect(f.message).toContain('JSON');
      });

      test('the deadline gives EXECUTION_TIMEOUT and the revision works again afterwards', async () => {
        const rev = both(`if (api.input().params.id === 'hang') await new Promise(() => {}); return 'ok';`)[kind];
        const timedOut = failureOf(await executor.execute(request(rev, { timeoutMs: 300, input: baseInput({ params: { id: 'hang' } }) })));
        expect(timedOut).toMatchObject({ status: 504, code: 'EXECUTION_TIMEOUT' });
        expect(resultOf(await executor.execute(request(rev)))).toBe('ok');
      }, 20_000);

      test('a Worker is reused for the same revision and never shared with another', async () => {
        const body = `globalThis.count = (globalThis.count ?? 0) + 1; return globalThis.count;`;
        const a = both(body)[kind];
        const b = both(body)[kind];
        expect(resultOf(await executor.execute(request(a)))).toBe(1);
        expect(resultOf(await executor.execute(request(a)))).toBe(2);
        expect(resultOf(await executor.execute(request(b)))).toBe(1);
        expect(resultOf(await executor.execute(request(a)))).toBe(3);
      });

      test('concurrent invocations keep their own inputs and results', async () => {
        const rev = both(`await new Promise((r) => setTimeout(r, Math.random() * 20)); api.log(api.input().params.id); return api.input().params.id;`)[kind];
        const outs = await Promise.all(
          Array.from({ length: 40 }, (_, i) => executor.execute(request(rev, { input: baseInput({ params: { id: String(i) } }) }))),
        );
        outs.forEach((out, i) => {
          expect(resultOf(out)).toBe(String(i));
          expect(out.kind === 'results' && out.logs).toEqual([String(i)]);
        });
      });
    });

    test('large and multi-byte inputs and results cross the channel intact', async () => {
      const text = 'é€😀x'.repeat(40_000); // ~440 KB of UTF-8 with 2-, 3- and 4-byte sequences
      const rev = both(`return { echo: api.input().body.text, length: api.input().body.text.length };`).node;
      const outs = await Promise.all(
        Array.from({ length: 4 }, () => executor.execute(request(rev, { input: baseInput({ body: { text } }) }))),
      );
      for (const out of outs) expect(resultOf(out)).toEqual({ echo: text, length: text.length });
    });

    test('lowcode elements run in order and see earlier results', async () => {
      const rev = lowcode(
        { name: 'first', code: `return input.body.qty * 2;` },
        { name: 'hidden', code: `api.log('saw', results.first); return { from: results.first };`, visible: false },
        { name: 'nothing', code: `return undefined;` },
        { name: 'last', code: `return Object.keys(results);` },
      );
      const out = await executor.execute(request(rev));
      expect(out).toEqual({
        kind: 'results',
        results: [
          { name: 'first', json: '6', visible: true },
          // 'hidden' was seen by later elements but stays in the Worker.
          { name: 'last', json: '["first","hidden"]', visible: true },
        ],
        logs: ['saw 6'],
      });
    });

    test('api.throw in a lowcode element skips the later elements', async () => {
      const rev = lowcode({ name: 'a', code: `return 1;` }, { name: 'b', code: `api.throw(404, { missing: results.a });` }, { name: 'c', code: `throw new Error('ran');` });
      expect(await executor.execute(request(rev))).toEqual({ kind: 'thrown', status: 404, bodyJson: '{"missing":1}', logs: [] });
    });

    test('a lowcode syntax error names the element and fails every invocation', async () => {
      const rev = lowcode({ name: 'ok', code: 'return 1;' }, { name: 'broken', code: 'return (;' });
      const f = failureOf(await executor.execute(request(rev)));
      expect(f.code).toBe('COMPONENT_ERROR');
      expect(f.message).toContain('element "broken"');
    });

    test('a node module keeps module-level state per revision; returning undefined gives no result', async () => {
      const rev = node(`let n = 0; export default async (api) => { n++; api.result('n', n); }`);
      await executor.execute(request(rev));
      expect(await executor.execute(request(rev))).toEqual({ kind: 'results', results: [{ name: 'n', json: '2', visible: true }], logs: [] });
    });

    test('errors carry no stack or source position', async () => {
      const rev = node(`export default async () => { const o = null; return o.field; }`);
      const f = failureOf(await executor.execute(request(rev)));
      expect(f.code).toBe('COMPONENT_ERROR');
      expect(f.message).not.toContain(' at ');
      expect(f.message).not.toMatch(/:\d+:\d+/);
      expect(f.message).not.toContain('blob:');
    });

    test('a Worker timing out ends its concurrent invocations with a clear 502', async () => {
      const rev = node(`export default async (api) => {
        if (api.input().params.id === 'hang') for (;;) {}
        await new Promise((r) => setTimeout(r, 1500)); return 'late';
      }`);
      await executor.execute(request(rev)); // the Worker exists
      const slow = executor.execute(request(rev, { timeoutMs: 20_000 }));
      await Bun.sleep(100);
      const hang = await executor.execute(request(rev, { timeoutMs: 300, input: baseInput({ params: { id: 'hang' } }) }));
      expect(failureOf(hang).code).toBe('EXECUTION_TIMEOUT');
      const f = failureOf(await slow);
      expect(f).toMatchObject({ status: 502, code: 'EXECUTOR_CRASHED' });
      expect(f.message).toContain('deadline');
      expect(resultOf(await executor.execute(request(rev)))).toBe('late');
    }, 20_000);

    test('a module that failed to load is loaded again by a fresh Worker', async () => {
      const until = Date.now() + 400;
      const rev = node(`if (Date.now() < ${until}) throw new Error('early'); export default async () => 'loaded';`);
      expect(failureOf(await executor.execute(request(rev)))).toMatchObject({ status: 500, code: 'COMPONENT_ERROR', message: 'early' });
      await Bun.sleep(Math.max(0, until - Date.now()) + 100);
      expect(resultOf(await executor.execute(request(rev)))).toBe('loaded');
    }, 20_000);

    test('idle Workers are evicted (module state starts over)', async () => {
      const rev = node(`let n = 0; export default async () => ++n;`);
      expect(resultOf(await executor.execute(request(rev)))).toBe(1);
      expect(resultOf(await executor.execute(request(rev)))).toBe(2);
      // The suites create their executors with workerIdleMs = 300.
      await Bun.sleep(1500);
      expect(resultOf(await executor.execute(request(rev)))).toBe(1);
    }, 20_000);

    describe('verify', () => {
      test('accepts a module whose default export is a function', async () => {
        expect(await executor.verify(node(`import os from 'node:os'; export default async (api) => os.EOL;`))).toEqual({ ok: true });
      });
      test('refuses a default export that is not a function', async () => {
        const v = await executor.verify(node(`export default 42;`));
        expect(v).toEqual({ ok: false, error: expect.stringContaining('default export') });
      });
      test('refuses a syntax error', async () => {
        const v = await executor.verify(node(`export default async (api) => { return (; }`));
        expect(v.ok).toBe(false);
      });
      test('refuses a module whose top-level code throws, with the message only', async () => {
        const v = await executor.verify(node(`throw new Error('missing config'); export default async () => 1;`));
        expect(v).toEqual({ ok: false, error: 'missing config' });
      });
      test('checks lowcode elements compile', async () => {
        expect(await executor.verify(lowcode({ name: 'a', code: 'return 1' }))).toEqual({ ok: true });
        const v = await executor.verify(lowcode({ name: 'a', code: 'return )' }));
        expect(v).toEqual({ ok: false, error: expect.stringContaining('element "a"') });
      });
      test('a module that never finishes loading fails verification and nothing is left running', async () => {
        const v = await executor.verify(node(`await new Promise(() => {}); export default async () => 1;`));
        expect(v).toEqual({ ok: false, error: expect.stringContaining('did not finish') });
        expect(resultOf(await executor.execute(request(both('return 1;').node)))).toBe(1);
      }, 30_000);
    });

    test('status reports the isolation and ready hosts, a spare among them', async () => {
      const settled = () => executor.status().hostsReady === executor.status().hostsTotal;
      for (let i = 0; i < 400 && !settled(); i++) await Bun.sleep(25); // a spare may be starting
      const s = executor.status();
      expect(s.isolation).toBe(label.startsWith('process') ? 'process' : 'worker');
      expect(s.hostsReady).toBe(s.hostsTotal);
      // Process isolation keeps spares for workspaces without a host; worker isolation binds none.
      if (s.isolation === 'process') expect(s.hostsSpare).toBeGreaterThanOrEqual(1);
      else expect(s.hostsSpare).toBe(0);
    }, 15_000);
  });
}
