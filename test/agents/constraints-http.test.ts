// Every constraint row through the real routes: just inside → 2xx, just outside → 422 at the pointer.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { constraintRows, type ConstraintRow, type RowContext } from './constraints.ts';

let p: TestPlatform;
let ctx: RowContext;
let rows: ConstraintRow[] = [];

beforeAll(async () => {
  p = await startTestPlatform();
  const sa = await p.json<{ id: string }>('POST', '/api/v1/service-accounts', { body: { name: 'exec', roles: [], platformAccess: true } });
  ctx = { enabledModel: 'scripted', userId: p.boot.adminPrincipalId, serviceAccountUserId: sa.body.id, workspaceId: p.boot.defaultWorkspaceId };
  rows = constraintRows(ctx);
});
afterAll(() => p.close());

async function send(row: ConstraintRow, body: Record<string, unknown>) {
  if (row.operation === 'create') return p.json<Record<string, unknown>>('POST', '/api/v1/agents', { body });
  const agent = await p.json<{ id: string }>('POST', '/api/v1/agents', { body: { name: 'fresh' } });
  return p.json<Record<string, unknown>>('PATCH', `/api/v1/agents/${agent.body.id}`, { body });
}

test('every constraint row holds over HTTP', async () => {
  expect(rows.length).toBeGreaterThan(400);
  const failures: string[] = [];
  for (const row of rows) {
    for (const body of [row.valid, ...row.alsoValid]) {
      const r = await send(row, body);
      if (r.status !== 200 && r.status !== 201) failures.push(`${row.name}: valid body got ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    }
    const r = await send(row, row.invalid);
    const errors = (r.body.errors ?? []) as { pointer: string }[];
    if (r.status !== 422) failures.push(`${row.name}: invalid body got ${r.status}`);
    else if (!errors.some((e) => e.pointer === row.pointer)) failures.push(`${row.name}: no violation at ${row.pointer}: ${JSON.stringify(errors)}`);
    else if (row.code && r.body.code !== row.code && !errors.some((e) => (e as { code?: string }).code === row.code)) failures.push(`${row.name}: expected code ${row.code}, got ${String(r.body.code)}`);
  }
  expect(failures).toEqual([]);
}, 120_000);
