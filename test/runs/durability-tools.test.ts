// Tool calls and approvals through crashes (DESIGN §5 Durability, Approvals; issue #23): a server
// killed while a run waits for an approval, or while a tool runs, and restarted on the same SQLite
// file. The approval and its deadline survive; a call that had started and never finished is not
// run again (tool_call.failed INTERRUPTED) unless its mutationIntent is read; nothing is repeated.
import { afterAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import { tempDir } from '../helpers/temp.ts';
import { runUntil as until, startPlatformProcess, type PlatformProcess } from './processes.ts';

type Event = { seq: number; type: string; tickIndex: number | null; data: any };
type Run = Record<string, any>;

const started: PlatformProcess[] = [];
afterAll(async () => {
  await Promise.all(started.splice(0).map((p) => p.kill('SIGKILL').catch(() => null)));
});

function database() {
  const dir = tempDir('durability-tools');
  const env = { DATA_DIR: dir, DATABASE_URL: `sqlite:${join(dir, 'platform.db')}`, RUN_LEASE_MS: '1000', JWT_SECRET: 'durability-tools-secret-0123456789abcdef' };
  return async () => {
    const p = await startPlatformProcess('all', env);
    started.push(p);
    return p;
  };
}

const events = async (p: PlatformProcess, runId: string): Promise<Event[]> => (await p.api('GET', `/agents/runs/${runId}/events?limit=10000`)).body.data;
async function untilEvent(p: PlatformProcess, runId: string, type: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await events(p, runId)).some((e) => e.type === type)) {
    if (Date.now() > deadline) throw new Error(`run ${runId}: no ${type} after ${ms} ms`);
    await Bun.sleep(50);
  }
}
const FINAL = ['completed', 'failed', 'cancelled', 'timed_out'];
const count = (list: Event[], type: string) => list.filter((e) => e.type === type).length;

async function component(p: PlatformProcess, code: string): Promise<string> {
  const c = await p.api('POST', '/components', { name: `c-${crypto.randomUUID()}`, kind: 'lowcode', elements: [{ name: 'out', code }] });
  expect(c.status).toBe(201);
  return c.body.id;
}

test('killed while waiting for an approval: after the restart the same approval is pending, resolving it runs the call once', async () => {
  const serve = database();
  const a = await serve();
  const tool = await component(a, 'return { ran: true };');
  const agent = (await a.api('POST', '/agents', { name: 'gated', config: { plugins: [{ id: 'act', kind: 'tools', componentId: tool, approvalPolicy: { mode: 'always' } }] } })).body.id;
  const run = (await a.api('POST', `/agents/${agent}/runs`, { input: { script: [{ tools: [{ name: 'act' }] }, { finish: 'done' }] } })).body;
  await until(a, run.id, (r) => r.status === 'waiting_approval');
  const [before] = (await a.api('GET', `/agents/runs/${run.id}/approvals`)).body.data;
  await a.kill('SIGKILL');

  const b = await serve();
  await untilEvent(b, run.id, 'run.resumed');
  await Bun.sleep(500);
  expect((await b.api('GET', `/agents/runs/${run.id}`)).body.status).toBe('waiting_approval');
  const after = (await b.api('GET', `/agents/runs/${run.id}/approvals`)).body.data;
  expect(after).toHaveLength(1);
  expect(after[0]).toMatchObject({ id: before.id, status: 'pending', expiresAt: before.expiresAt });
  expect((await b.api('POST', `/agents/runs/${run.id}/approvals/${before.id}`, { approve: true })).status).toBe(200);
  expect(await until(b, run.id, (r) => FINAL.includes(r.status))).toMatchObject({ status: 'completed', output: 'done' });
  const list = await events(b, run.id);
  expect(count(list, 'tool_call.approval_requested')).toBe(1);
  expect(count(list, 'tool_call.started')).toBe(1);
  expect(count(list, 'tool_call.completed')).toBe(1);
  expect(list.map((e) => e.seq)).toEqual(list.map((_, i) => i + 1));
}, 90_000);

test("an approval's deadline passes while no server runs: the restarted server fails the run approval_expired", async () => {
  const serve = database();
  const a = await serve();
  const tool = await component(a, 'return 1;');
  const agent = (await a.api('POST', '/agents', { name: 'expiring', config: { plugins: [{ id: 'act', kind: 'tools', componentId: tool, approvalPolicy: { mode: 'always' } }] } })).body.id;
  const run = (await a.api('POST', `/agents/${agent}/runs`, { approvalTimeoutMs: 2000, input: { script: [{ tools: [{ name: 'act' }] }] } })).body;
  await until(a, run.id, (r) => r.status === 'waiting_approval');
  await a.kill('SIGKILL');
  await Bun.sleep(2500);
  const b = await serve();
  expect(await until(b, run.id, (r) => FINAL.includes(r.status))).toMatchObject({ status: 'failed', stopReason: 'approval_expired' });
  expect((await b.api('GET', `/agents/runs/${run.id}/approvals`)).body.data[0].status).toBe('expired');
}, 90_000);

test('killed while a tool runs: the call is not run again (INTERRUPTED) and the run goes on; a read tool runs again', async () => {
  const serve = database();
  const a = await serve();
  const slow = await component(a, 'await new Promise((r) => setTimeout(r, 4000)); return 1;');
  const agent = (await a.api('POST', '/agents', {
    name: 'tools',
    config: { plugins: [{ id: 'write', kind: 'tools', componentId: slow, mutationIntent: 'write' }, { id: 'read', kind: 'tools', componentId: slow, mutationIntent: 'read' }] },
  })).body.id;
  const writer = (await a.api('POST', `/agents/${agent}/runs`, { input: { script: [{ tools: [{ name: 'write' }] }, { finish: 'went on' }] } })).body;
  await untilEvent(a, writer.id, 'tool_call.started');
  await a.kill('SIGKILL');
  const b = await serve();
  expect(await until(b, writer.id, (r) => FINAL.includes(r.status))).toMatchObject({ status: 'completed', output: 'went on' });
  const written = await events(b, writer.id);
  expect(count(written, 'tool_call.started')).toBe(1);
  expect(written.find((e) => e.type === 'tool_call.failed')!.data.code).toBe('INTERRUPTED');
  expect(count(written, 'tool_call.requested')).toBe(1);

  const reader = (await b.api('POST', `/agents/${agent}/runs`, { input: { script: [{ tools: [{ name: 'read' }] }, { finish: 'read again' }] } })).body;
  await untilEvent(b, reader.id, 'tool_call.started');
  await b.kill('SIGKILL');
  const c = await serve();
  expect(await until(c, reader.id, (r) => FINAL.includes(r.status), 30_000)).toMatchObject({ status: 'completed', output: 'read again' });
  const read = await events(c, reader.id);
  expect(count(read, 'tool_call.completed')).toBe(1);
  expect(count(read, 'tool_call.failed')).toBe(0);
}, 120_000);
