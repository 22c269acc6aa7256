// Checks that a lowcode element's code is a valid body of `async (api, input, results) => { … }`.
// Parsing only: nothing is ever run or transpiled here. Babel (./parse.ts) parses the body inside
// its wrapper and the tree must be that one function and nothing else, so code that closes the body
// early (`}); more(); (() => {`) is refused; the engine's own compiler (vm.Script, which compiles
// without running) then catches the early errors it knows that Babel lets through.
import { Script } from 'node:vm';
import { engineError, linesOf, type SourceError } from './build-errors.ts';
import { parseSource } from './parse.ts';

const HEAD = '(async (api, input, results) => {\n';
const TAIL = '\n});';

/** Problems of one element body, positioned in the code itself; empty when it compiles. */
export function functionBodyErrors(code: string): SourceError[] {
  const wrapped = HEAD + code + TAIL;
  const parsed = parseSource(wrapped, { sourceType: 'script' });
  if (!parsed.ok) return [inCode(parsed.error, code)];
  const escape = escapeOf(parsed.file.program.body, wrapped.length - TAIL.length + 2);
  if (escape) return [inCode({ ...escape, message: 'The code closes its function body early' }, code)];
  try {
    // Compiles, never runs (no runInContext / runInThisContext).
    new Script(wrapped, { filename: 'element.js' });
  } catch (error) {
    return [inCode(engineError(error), code)];
  }
  return [];
}

/** Where the wrapper's function ends when that is not where the code does; null when the code stays inside. */
function escapeOf(statements: { type: string; expression?: unknown; loc?: { start: { line: number; column: number } } | null }[], bodyEnd: number): { line: number; column: number } | null {
  const [first] = statements;
  const fn = first?.type === 'ExpressionStatement' ? (first.expression as { type: string; body?: { end?: number | null; loc?: { end: { line: number; column: number } } | null } }) : null;
  if (statements.length === 1 && fn?.type === 'ArrowFunctionExpression' && fn.body?.end === bodyEnd) return null;
  const end = fn?.type === 'ArrowFunctionExpression' ? fn.body?.loc?.end : undefined;
  return end ? { line: end.line, column: end.column } : { line: 2, column: 1 };
}

/** Maps a position in the wrapper (whose head is one line) back into the code. */
function inCode(e: SourceError, code: string): SourceError {
  const lines = linesOf(code);
  const line = e.line - 1;
  if (line < 1) return { ...e, line: 1, column: 1 };
  if (line > lines.length) {
    // The wrapper's closing line: the code ended before it was complete.
    return { line: lines.length, column: lines[lines.length - 1]!.length + 1, message: `${e.message} (at the end of the code)` };
  }
  return { ...e, line };
}
