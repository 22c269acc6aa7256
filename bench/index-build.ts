// Index build bench: the definition index is rebuilt from the database on every published change
// (DESIGN §9), so its cost is paid per activation. Builds the snapshot of N active Endpoints
// (lowcode components, half pinned by digest, half guarded by a json-validator component, a
// quarter executing as a service account) on a SQLite file, and compiles it; the baseline, in the
// same run, resolves each binding with its own queries as the build did before (one lookup per
// Endpoint and per guard).
// Run: node_modules/.bin/bun bench/index-build.ts [--endpoints=1000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestPlatform, ADMIN_KEY } from '../test/helpers/platform.ts';
import { buildIndexSnapshot } from '../src/core/definitions/index-snapshot.ts';
import { EndpointStore } from '../src/core/definitions/store.ts';
import { TableComponentLookup } from '../src/core/definitions/component-lookup.ts';
import { compileIndex } from '../runtime/index/compile.ts';
import { GuardCache } from '../runtime/guard/index.ts';
import { sql } from 'drizzle-orm';
import { millis, ratio, table } from './lib/table.ts';

const count = Number(process.argv.find((a) => a.startsWith('--endpoints='))?.split('=')[1] ?? 1000);
const dir = mkdtempSync(join(tmpdir(), 'bench-index-'));
const p = await startTestPlatform({ DATABASE_URL: `sqlite:${join(dir, 'p.db')}` });
try {
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await p.json<Record<string, any>>(method, path, { body, key: ADMIN_KEY });
    if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const account = await api('POST', '/api/v1/service-accounts', { name: 'exec', roles: ['COMPONENT_ADMIN'], platformAccess: true });
  const components: { id: string; digest: string }[] = [];
  const validators: { id: string; digest: string }[] = [];
  for (let i = 0; i < 50; i++) {
    const c = await api('POST', '/api/v1/components', { name: `c${i}`, kind: 'lowcode', elements: [{ name: 'a', code: `return ${i};` }] });
    components.push({ id: c.id, digest: c.activeRevision.digest });
    const v = await api('POST', '/api/v1/components', { name: `v${i}`, kind: 'json-validator', schema: { type: 'object', properties: { n: { type: 'string', maxLength: 10 } } } });
    validators.push({ id: v.id, digest: v.activeRevision.digest });
  }
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const c = components[i % components.length]!;
    const v = validators[i % validators.length]!;
    const e = await api('POST', '/api/v1/endpoints', {
      name: `e${i}`, method: 'POST', path: `/e${i}/:id`, componentId: c.id, popResult: 'a',
      ...(i % 2 === 0 ? { componentDigest: c.digest } : { guard: { type: 'component', componentId: v.id, componentDigest: v.digest } }),
      ...(i % 4 === 0 ? { executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: account.id } } : {}),
    });
    await api('POST', `/api/v1/endpoints/${e.id}/activate`);
  }
  const setup = performance.now() - started;

  const store = new EndpointStore(p.db);
  const lookup = new TableComponentLookup(p.db);
  const perBinding = async () => {
    await p.db.write(async (q) => {
      for (const record of await store.listActive(q)) {
        if (record.componentId) await lookup.resolve(q, record.componentId, record.componentDigest);
        if (record.guard?.type === 'component') await lookup.resolve(q, record.guard.componentId, record.guard.componentDigest);
      }
    });
  };
  const snapshot = await buildIndexSnapshot(p.db);
  if (snapshot.endpoints.length !== count) throw new Error(`expected ${count} endpoints in the index, got ${snapshot.endpoints.length}`);
  // What a change does to the rows: bumps the version of the definitions it touches.
  const touch = (all: boolean) => p.db.write(async (q) => {
    q.run(all ? sql`UPDATE endpoints SET version = version + 1` : sql`UPDATE endpoints SET version = version + 1 WHERE id = (SELECT id FROM endpoints LIMIT 1)`);
  });
  const guards = new GuardCache();
  compileIndex(snapshot, guards);
  const times = await oneShotAsync([
    { name: 'baseline: a lookup per binding (reads only)', run: perBinding },
    { name: 'snapshot build, every definition changed', before: () => touch(true), run: () => buildIndexSnapshot(p.db) },
    { name: 'snapshot build, one definition changed', before: () => touch(false), run: () => buildIndexSnapshot(p.db) },
    { name: 'compile (router, guards, code), first build', run: async () => void compileIndex(snapshot) },
    { name: 'compile, guards of the build before reused', run: async () => void compileIndex(snapshot, guards) },
  ]);
  const base = times.get('baseline: a lookup per binding (reads only)')!;
  console.log(`Index build: ${count} active Endpoints on a SQLite file (created and activated one by one in ${(setup / 1000).toFixed(1)} s); median of 11 runs`);
  console.log(table(['step', 'median', 'p90', '× baseline'], [...times].map(([name, t]) => [name, millis(t.median), millis(t.p90), ratio(t.median, base.median)])));
} finally {
  await p.close();
  rmSync(dir, { recursive: true, force: true });
}

async function oneShotAsync(steps: { name: string; before?: () => Promise<unknown>; run: () => Promise<unknown> }[], runs = 11): Promise<Map<string, { median: number; p90: number }>> {
  const out = new Map<string, { median: number; p90: number }>();
  for (const step of steps) {
    for (let i = 0; i < 2; i++) {
      await step.before?.();
      await step.run();
    }
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      await step.before?.();
      const t = performance.now();
      await step.run();
      samples.push(performance.now() - t);
    }
    samples.sort((a, b) => a - b);
    out.set(step.name, { median: samples[Math.floor(runs / 2)]!, p90: samples[Math.floor(runs * 0.9)]! });
  }
  return out;
}
