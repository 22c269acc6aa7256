// The shared executor behaviour under process isolation (sandboxed host processes).
import { createExecutor } from '../../../runtime/executor/index.ts';
import { executorCases } from './executor-cases.ts';

executorCases('process', () =>
  createExecutor({ isolation: 'process', hosts: 2, workerIdleMs: 300, verifyTimeoutMs: 1000, log: () => {} }),
);
