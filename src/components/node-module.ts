// Transpiles a node component's module (TypeScript or JavaScript) to the JavaScript the executor
// loads, and refuses imports other than `node:` builtins: the sandbox has no packages to offer,
// and `bun:` modules (ffi, sqlite) would reach past it. Dynamic imports of computed specifiers
// cannot be seen here; the sandbox is what stops those.
import { builtinModules } from 'node:module';
import { linesOf, transpilerErrors, type SourceError } from './build-errors.ts';

const typescript = new Bun.Transpiler({ loader: 'ts', target: 'bun' });
const javascript = new Bun.Transpiler({ loader: 'js', target: 'bun' });

const BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('_') && !m.startsWith('bun')).map((m) => m.replace(/^node:/, '')));

export const isAllowedImport = (specifier: string): boolean =>
  specifier.startsWith('node:') && BUILTINS.has(specifier.slice('node:'.length));

export type ModuleCheck = { ok: true; compiled: string } | { ok: false; errors: SourceError[] };

export function transpileModule(source: string): ModuleCheck {
  let compiled: string;
  try {
    compiled = typescript.transformSync(source);
  } catch (error) {
    // The first error only: the rest are usually the parser stumbling over the first.
    return { ok: false, errors: transpilerErrors(error).slice(0, 1) };
  }
  // Scanned after transpiling, so type-only imports (erased) are not held against the module.
  const errors = javascript
    .scanImports(compiled)
    .filter((entry) => !isAllowedImport(entry.path))
    .map((entry): SourceError => ({
      ...positionOf(source, entry.path),
      message: `import of "${entry.path}" is not allowed: a node component may import only node: builtins (e.g. node:crypto)`,
    }));
  return errors.length > 0 ? { ok: false, errors } : { ok: true, compiled };
}

/** Where the specifier first appears as a string literal in the source (1:1 if it cannot be found). */
function positionOf(source: string, specifier: string): { line: number; column: number } {
  const escaped = specifier.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`(['"\`])${escaped}\\1`).exec(source);
  if (!match) return { line: 1, column: 1 };
  const before = linesOf(source.slice(0, match.index));
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}
