// The import rules of .dependency-cruiser.cjs (README "Architecture"), checked on every run: a file
// that breaks one fails here, named with the import that breaks it.
import { expect, test } from 'bun:test';
import { join } from 'node:path';

const ROOT = join(import.meta.dir, '..');

test('every import follows the rules of .dependency-cruiser.cjs (no loops, the origins through their index.ts, the sandbox apart)', async () => {
  const child = Bun.spawn([process.execPath, join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'), 'src', 'runtime', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  await child.exited;
  const report = JSON.parse(out || 'null') as { summary: { totalCruised: number; violations: { rule: { name: string; severity: string }; from: string; to: string }[] } } | null;
  if (!report) throw new Error(`dependency-cruiser printed no report: ${err}`);
  expect(report.summary.totalCruised).toBeGreaterThan(200);
  const errors = report.summary.violations.filter((v) => v.rule.severity === 'error').map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
  expect(errors).toEqual([]);
}, 60_000);

test('knip finds no unused file, export, type or dependency (knip.json names the entry points)', async () => {
  const child = Bun.spawn([process.execPath, join(ROOT, 'node_modules/knip/bin/knip.js'), '--no-progress', '--reporter', 'json'], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' });
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  await child.exited;
  const report = JSON.parse(out || 'null') as { issues: Record<string, unknown>[] } | null;
  if (!report) throw new Error(`knip printed no report: ${err}`);
  const findings = report.issues.flatMap((issue) =>
    Object.entries(issue).flatMap(([kind, value]) => (kind !== 'file' && Array.isArray(value) && value.length > 0 ? [`${String(issue.file)}: ${kind} ${JSON.stringify(value.map((v: { name?: string }) => v.name ?? v))}`] : [])),
  );
  expect(findings).toEqual([]);
}, 60_000);
