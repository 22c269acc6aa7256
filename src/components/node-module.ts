// Save-time check of a node component's module (TypeScript or JavaScript): it parses, and imports
// only `node:` builtins, without import attributes. Parsing only (./parse.ts): the module is
// transpiled, loaded and its default export checked inside the executor's sandbox when deployed.
// The sandbox has no packages to offer, and `bun:` modules (ffi, sqlite) would reach past it;
// dynamic imports of computed specifiers cannot be seen here, and the sandbox is what stops those.
import { builtinModules } from 'node:module';
import type { Node, StringLiteral } from '@babel/types';
import type { SourceError } from './build-errors.ts';
import { nodesOf, parseSource } from './parse.ts';

const BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('_') && !m.startsWith('bun')).map((m) => m.replace(/^node:/, '')));

/**
 * Builtins withheld from components: the sandbox gives them no network, processes, threads,
 * terminals or module loader, and these take raw file descriptors or reach the loader (a
 * `net.Socket({ fd })` is not covered by Deno's permissions). Also withheld at run time:
 * process.getBuiltinModule (runtime/executor/worker/process-guards.ts).
 */
const WITHHELD = new Set(['child_process', 'cluster', 'dgram', 'dns', 'dns/promises', 'http', 'http2', 'https', 'inspector', 'inspector/promises', 'module', 'net', 'repl', 'tls', 'tty', 'wasi', 'worker_threads']);

const importProblem = (specifier: string): string | null => {
  const name = specifier.startsWith('node:') ? specifier.slice('node:'.length) : null;
  if (name === null || !BUILTINS.has(name)) return `import of "${specifier}" is not allowed: a node component may import only node: builtins (e.g. node:crypto)`;
  if (WITHHELD.has(name)) return `import of "${specifier}" is not allowed: components get no network, processes, threads, terminals or module loader (${[...WITHHELD].filter((m) => !m.includes('/')).map((m) => `node:${m}`).join(', ')} are withheld)`;
  return null;
};

/** Problems of a module, in source order; empty when it may be deployed. */
export function moduleErrors(source: string): SourceError[] {
  const parsed = parseSource(source, { sourceType: 'module', plugins: ['typescript', 'deprecatedImportAssert'] });
  if (!parsed.ok) return [parsed.error];
  const errors: SourceError[] = [];
  for (const node of nodesOf(parsed.file.program)) {
    const found = importOf(node);
    if (!found) continue;
    const at = positionOf(found.at);
    if (found.attributes) {
      errors.push({ ...at, message: 'import attributes (`with { … }`, `assert { … }`) are not allowed: `type: "macro"` would run code while the module is built' });
    }
    const problem = found.specifier === null ? null : importProblem(found.specifier);
    if (problem) errors.push({ ...at, message: problem });
  }
  return errors.sort((a, b) => a.line - b.line || a.column - b.column);
}

interface FoundImport {
  /** The literal specifier, or null when it is computed (only the sandbox can stop those). */
  specifier: string | null;
  attributes: boolean;
  at: Node;
}

/** The import a node makes, if any: static, re-export, `import x = require()`, `import()` or `require()`. */
function importOf(node: Node): FoundImport | null {
  switch (node.type) {
    case 'ImportDeclaration':
      // Type-only imports are erased by the transpiler, whatever they name.
      if (node.importKind === 'type' || (node.specifiers.length > 0 && node.specifiers.every((s) => s.type === 'ImportSpecifier' && s.importKind === 'type'))) return null;
      return { specifier: node.source.value, attributes: hasAttributes(node), at: node.source };
    case 'ExportNamedDeclaration':
    case 'ExportAllDeclaration':
      if (!node.source || node.exportKind === 'type') return null;
      return { specifier: node.source.value, attributes: hasAttributes(node), at: node.source };
    case 'TSImportEqualsDeclaration':
      if (node.importKind === 'type' || node.moduleReference.type !== 'TSExternalModuleReference') return null;
      return { specifier: node.moduleReference.expression.value, attributes: false, at: node.moduleReference.expression };
    case 'CallExpression': {
      const dynamic = node.callee.type === 'Import';
      if (!dynamic && !(node.callee.type === 'Identifier' && node.callee.name === 'require')) return null;
      const first = node.arguments[0];
      if (!first) return null;
      return { specifier: literal(first), attributes: dynamic && node.arguments.length > 1, at: first };
    }
    default:
      return null;
  }
}

function hasAttributes(node: Node): boolean {
  const { attributes, assertions } = node as { attributes?: unknown[] | null; assertions?: unknown[] | null };
  return (attributes?.length ?? 0) > 0 || (assertions?.length ?? 0) > 0;
}

function literal(node: Node): string | null {
  if (node.type === 'StringLiteral') return (node as StringLiteral).value;
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0]?.value.cooked ?? null;
  return null;
}

const positionOf = (node: Node): { line: number; column: number } => ({ line: node.loc?.start.line ?? 1, column: (node.loc?.start.column ?? 0) + 1 });
