// The shared executor behaviour under worker isolation (trusted code, Workers in the server).
import { expect, test } from 'bun:test';
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
