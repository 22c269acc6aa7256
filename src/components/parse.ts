// The one parser the server runs on submitted code: @babel/parser, plain JavaScript that builds a
// syntax tree and cannot execute anything (no macros, no plugins that load code). Bun's transpiler
// must never see submitted text here: it runs imports marked `with { type: 'macro' }` while it
// transpiles (issue #20). Transpiling and loading happen only inside the executor's sandbox.
import { parse, type ParserOptions } from '@babel/parser';
import type { File, Node } from '@babel/types';
import type { SourceError } from './build-errors.ts';

export type Parsed = { ok: true; file: File } | { ok: false; error: SourceError };

/** Parses `text`; a syntax error (or a text too deeply nested to parse) comes back positioned. */
export function parseSource(text: string, options: ParserOptions): Parsed {
  try {
    return { ok: true, file: parse(text, { ...options, errorRecovery: false }) };
  } catch (error) {
    return { ok: false, error: parserError(error, text) };
  }
}

/** Line and 1-based column of a Babel SyntaxError ("Unexpected token (2:10)"), message without the position. */
function parserError(error: unknown, text: string): SourceError {
  if (error instanceof RangeError) return { line: 1, column: 1, message: 'The code is nested too deeply to check' };
  const e = (error ?? {}) as { message?: unknown; pos?: unknown; loc?: { line?: unknown; column?: unknown } };
  let message = typeof e.message === 'string' ? e.message.replace(/ \(\d+:\d+\)$/, '') : String(error);
  // Babel names the token only when it expected another one: say which one it found.
  const found = typeof e.pos === 'number' ? text[e.pos] : undefined;
  if (message === 'Unexpected token' && found !== undefined && found.trim() !== '') message = `Unexpected token "${found}"`;
  const line = typeof e.loc?.line === 'number' ? e.loc.line : 1;
  const column = typeof e.loc?.column === 'number' ? e.loc.column + 1 : 1;
  return { line, column, message };
}

/** Every node of a tree, parents before children, without recursion (deep trees stay on the heap). */
export function* nodesOf(root: Node): Generator<Node> {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]);
      continue;
    }
    if (value === null || typeof value !== 'object' || typeof (value as { type?: unknown }).type !== 'string') continue;
    yield value as Node;
    for (const key of Object.keys(value)) {
      if (key === 'loc' || key === 'extra' || key === 'leadingComments' || key === 'trailingComments' || key === 'innerComments') continue;
      const child = (value as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
}
