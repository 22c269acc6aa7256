// The shared executor behaviour under worker isolation (trusted code, Workers in the server).
import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { createExecutor } from '../../../runtime/executor/index.ts';
import { executorCases } from './executor-cases.ts';

const logs: string[] = [];
executorCases('worker', () =>
  createExecutor({ isolation: 'worker', workerIdleMs: 300, verifyTimeoutMs: 1000, log: (line) => logs.push(line) }),
);

test('worker isolation warns that it is unsafe and claims no sandbox layer', async () => {
  const lines: string[] = [];
  const executor = await createExecutor({ isolation: 'worker', log: (line) => lines.push(line) });
  try {
    expect(lines.join('\n')).toContain('unsafe');
    expect(Object.values(executor.status().layers).every((on) => on === false)).toBe(true);
  } finally {
    await executor.close();
  }
});

test('a stray error (timer, unawaited rejection) is the running invocation\'s 500 and the Worker serves on (outside bun test)', async () => {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, 'fixtures', 'stray-errors.ts'), 'worker'], { stdout: 'pipe', stderr: 'inherit' });
  const out = JSON.parse((await new Response(child.stdout).text()).trim().split('\n').at(-1)!) as Record<string, unknown>;
  expect(await child.exited).toBe(0);
  expect(out.timer).toMatchObject({ kind: 'failed', status: 500, code: 'COMPONENT_ERROR', message: 'slow timer throw' });
  expect(out.rejection).toMatchObject({ kind: 'failed', status: 500, code: 'COMPONENT_ERROR', message: 'unhandled rejection' });
  expect(out.first).toMatchObject({ kind: 'failed', code: 'COMPONENT_ERROR', message: 'stray' });
  expect(out.second).toEqual({ kind: 'results', results: [{ name: 'default', json: '2', visible: true }], logs: [] });
}, 30_000);
