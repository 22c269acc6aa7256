// Submitted content never runs in a server process (issue #20, README "Security"): the constructs
// that can execute or transpile text may appear only in the files the README lists for them, each
// of which runs inside the executor's sandbox or only parses. A new use elsewhere fails here and
// must be justified in the README's list before the allowlist grows.
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dir, '..', '..');

/** Construct → the files allowed to use it (paths from the project root). */
const ALLOWED: Record<string, { pattern: RegExp; files: string[] }> = {
  'Bun.Transpiler (runs macro imports while transpiling)': { pattern: /\bTranspiler\b/, files: ['runtime/executor/worker/compile.ts'] },
  'new Function / AsyncFunction': { pattern: /\bnew\s+Function\b|\bAsyncFunction\b|\bGeneratorFunction\b|constructor\s*\(\s*['"`]/, files: ['runtime/executor/worker/compile.ts'] },
  'eval': { pattern: /(?<![\w.])eval\s*\(|\bindirectEval\b/, files: [] },
  'node:vm': { pattern: /['"](node:)?vm['"]/, files: ['src/components/function-body.ts'] },
  'import() of a computed specifier': { pattern: /\bimport\(\s*(?!['"])/, files: ['runtime/executor/worker/compile.ts'] },
  'Bun.build / Bun.plugin': { pattern: /\bBun\.(build|plugin)\b/, files: [] },
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const files = ['src', 'runtime'].flatMap((dir) => sourceFiles(join(ROOT, dir))).map((path) => ({
  path: relative(ROOT, path),
  // Comments may name the constructs; code may not.
  code: readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1'),
}));

describe('constructs that execute or transpile text appear only where the README says', () => {
  test('the scan reads the source tree', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((f) => f.path === 'runtime/executor/worker/compile.ts' && ALLOWED['Bun.Transpiler (runs macro imports while transpiling)']!.pattern.test(f.code))).toBe(true);
  });

  for (const [name, { pattern, files: allowed }] of Object.entries(ALLOWED)) {
    test(name, () => {
      const found = files.filter((f) => pattern.test(f.code)).map((f) => f.path);
      expect(found.filter((path) => !allowed.includes(path))).toEqual([]);
    });
  }
});
