// The import rules of .dependency-cruiser.cjs (README "Architecture"), checked on every run: a file
// that breaks one fails here, named with the import that breaks it.
import { expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(import.meta.dir, '..');

/** Every TypeScript source file of src/ and runtime/, relative to the root. */
function sourceFiles(): string[] {
  return ['src', 'runtime'].flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => relative(ROOT, join(entry.parentPath, entry.name))),
  );
}

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

/** Files that may use a runtime's own globals: that runtime's side of the platform seam, and the programs inside the sandbox. */
const RUNTIME_GLOBALS: Record<string, RegExp> = {
  Bun: /^(src\/core\/platform\/bun[^/]*\.ts|runtime\/executor\/(host|worker)\/.*)$/,
  Deno: /^(src\/core\/platform\/deno[^/]*\.ts|runtime\/executor\/(host|worker)\/.*)$/,
};

test("Bun's and Deno's own API (the Bun and Deno globals, import.meta.dir) are used only behind the platform seam and inside the sandbox", () => {
  // dependency-cruiser sees imports only (rule bun-only-behind-the-platform-seam); a global is found here, in the syntax tree, so
  // that comments and strings naming Bun or Deno (`'Deno' in globalThis`, how index.ts chooses) do not count.
  const found: string[] = [];
  for (const file of sourceFiles()) {
    const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const line = () => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      if (ts.isIdentifier(node) && Object.hasOwn(RUNTIME_GLOBALS, node.text) && !RUNTIME_GLOBALS[node.text]!.test(file) && !(ts.isPropertyAccessExpression(node.parent) && node.parent.name === node)) {
        found.push(`${file}:${line()}: ${node.text}`);
      }
      if (ts.isPropertyAccessExpression(node) && ts.isMetaProperty(node.expression) && node.name.text === 'dir' && !RUNTIME_GLOBALS.Bun!.test(file)) found.push(`${file}:${line()}: import.meta.dir`);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  expect(found).toEqual([]);
});

test('no source file of src/ or runtime/ is over 400 lines', () => {
  const LIMIT = 400;
  const over = sourceFiles().flatMap((file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    return lines > LIMIT ? [`${file}: ${lines} lines`] : [];
  });
  expect(over).toEqual([]);
});

test('every folder of src/ and runtime/ with source files has an index.ts, the only file other folders may import (rule other-folders-through-their-index)', () => {
  // The migrations folders hold SQL and drizzle-kit's journal, no source file.
  const folders = new Set(sourceFiles().map((file) => dirname(file)));
  expect([...folders].filter((folder) => !existsSync(join(ROOT, folder, 'index.ts')))).toEqual([]);
});
