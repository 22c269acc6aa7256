// A host runs up to maxWorkersPerHost Workers, one per revision: its address-space limit must leave
// room for each Worker's reservation (~70 MB) on top of what a fresh host and its JIT pools take,
// else revisions loaded side by side fail with "Failed to spawn worker thread".
import { afterAll, expect, test } from 'bun:test';
import { createExecutor, type Executor } from '../../../runtime/executor/index.ts';
import { maxWorkersPerHost } from '../../../runtime/executor/contract/limits.ts';
import { lowcode, request } from './helpers.ts';

const MEMORY_MB = 1024;
const executor: Executor = await createExecutor({ isolation: 'process', hosts: 1, maxHosts: 2, hostsPerTenant: 1, memoryMb: MEMORY_MB, log: () => {} });
afterAll(() => executor.close());

test('as many distinct revisions as a host may hold Workers for run side by side on one host', async () => {
  const workers = maxWorkersPerHost(MEMORY_MB);
  // Each holds its Worker busy a moment, so that all of them are loaded at once.
  const revisions = Array.from({ length: workers }, (_, n) => lowcode({ name: 'out', code: `await new Promise((r) => setTimeout(r, 300)); return ${n};` }));
  const outcomes = await Promise.all(revisions.map((revision) => executor.execute(request(revision, { timeoutMs: 20_000 }))));
  expect(outcomes.map((o) => (o.kind === 'results' ? o.results[0]?.json : `${o.kind}: ${'message' in o ? o.message : ''}`))).toEqual(revisions.map((_, n) => String(n)));
}, 60_000);

test('more distinct revisions than Workers fit, called at once: each runs (Workers replaced as they free up), none fails to start', async () => {
  const workers = maxWorkersPerHost(MEMORY_MB);
  const revisions = Array.from({ length: workers * 4 }, (_, n) => lowcode({ name: 'out', code: `await new Promise((r) => setTimeout(r, 50)); return ${n};` }));
  const outcomes = await Promise.all(revisions.map((revision) => executor.execute(request(revision, { timeoutMs: 20_000 }))));
  expect(outcomes.map((o) => (o.kind === 'results' ? o.results[0]?.json : `${o.kind}: ${'message' in o ? o.message : ''}`))).toEqual(revisions.map((_, n) => String(n)));
}, 60_000);
