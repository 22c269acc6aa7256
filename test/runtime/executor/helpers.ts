// Builders shared by the executor tests: requests, revisions and outcome accessors.
import { mkdirSync, mkdtempSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import type { CodeRevision, ComponentInput, ExecutionOutcome, ExecutionRequest } from '../../../runtime/executor/index.ts';
import { isUnder, worldWritableDirs } from '../../../runtime/executor/server/private-tmp.ts';

let serial = 0;

/** The tenant test revisions belong to unless a test gives another (see `ofTenant`). */
const TEST_TENANT = 'tests';
/** A fresh revision id, so tests never share Workers by accident. */
const rid = (label: string): string => `${label}-${++serial}-${crypto.randomUUID()}`;

export const lowcode = (...elements: { name: string; code: string; visible?: boolean }[]): CodeRevision => ({
  id: rid('lowcode'),
  tenant: TEST_TENANT,
  kind: 'lowcode',
  elements: elements.map((e) => ({ name: e.name, code: e.code, visible: e.visible ?? true })),
});

export const node = (source: string): CodeRevision => ({ id: rid('node'), tenant: TEST_TENANT, kind: 'node', source });

/** The same revision content, as another tenant's code. */
export const ofTenant = (revision: CodeRevision, tenant: string): CodeRevision => ({ ...revision, tenant });

/** One component in both kinds: `body` runs with `api` and `input` in scope and returns a value. */
export function both(body: string): { lowcode: CodeRevision; node: CodeRevision } {
  return {
    lowcode: lowcode({ name: 'default', code: body }),
    node: node(`export default async (api) => { const input = api.input(); ${body} }`),
  };
}

export const baseInput = (over: Partial<ComponentInput> = {}): ComponentInput => ({
  method: 'POST',
  path: '/orders/42',
  params: { id: '42' },
  query: { expand: 'lines' },
  body: { qty: 3 },
  headers: { accept: 'application/json' },
  inputs: { region: 'eu' },
  ...over,
});

export function request(revision: CodeRevision, over: Partial<ExecutionRequest> = {}): ExecutionRequest {
  return {
    revision,
    input: baseInput(),
    executionId: crypto.randomUUID(),
    oid: 'oid-test',
    currentUser: { id: 'user-1', kind: 'USER', name: 'Ann', roles: ['ENDPOINT_INVOKE'] },
    timeoutMs: 10_000,
    ...over,
  };
}

/** The visible value of result `name`, failing loudly when the outcome is not a result map. */
export function resultOf(outcome: ExecutionOutcome, name = 'default'): unknown {
  if (outcome.kind !== 'results') throw new Error(`expected results, got ${JSON.stringify(outcome)}`);
  const json = outcome.results.find((r) => r.name === name)?.json;
  return json === undefined ? undefined : JSON.parse(json);
}

export function failureOf(outcome: ExecutionOutcome): Extract<ExecutionOutcome, { kind: 'failed' }> {
  if (outcome.kind !== 'failed') throw new Error(`expected a failure, got ${JSON.stringify(outcome).slice(0, 500)}`);
  return outcome;
}

/**
 * A fresh directory, traversable by anyone, where a host can see what the test puts: under the
 * checkout's (ignored) data/, as a deployment's database is, unless the checkout lies below a
 * directory hosts get a private tmpfs on (a CI clone in /tmp); then under /run (root only).
 */
export function hostVisibleDir(label: string): string {
  const data = join(import.meta.dir, '..', '..', '..', 'data');
  const base = isUnder(data, worldWritableDirs()) ? '/run' : data;
  mkdirSync(base, { recursive: true });
  const dir = mkdtempSync(join(base, `${label}-`));
  chmodSync(dir, 0o755);
  return dir;
}
