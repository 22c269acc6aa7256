// Positions out of Bun's parse errors: Bun.Transpiler throws one BuildMessage or an AggregateError
// of them, each with a 1-based line and column; the engine's SyntaxError carries only a line and a caret.

export interface SourceError {
  /** 1-based, in the text the caller checked (wrappers already subtracted). */
  line: number;
  column: number;
  message: string;
}

interface Positioned {
  message?: unknown;
  position?: { line?: unknown; column?: unknown } | null;
}

/** Every positioned message of a Bun.Transpiler failure, in source order. */
export function transpilerErrors(error: unknown): SourceError[] {
  const list: unknown[] = error instanceof AggregateError ? error.errors : [error];
  const out = list.map((item): SourceError => {
    const { message, position } = (item ?? {}) as Positioned;
    return {
      line: typeof position?.line === 'number' ? position.line : 1,
      column: typeof position?.column === 'number' ? position.column : 1,
      message: typeof message === 'string' && message ? message : String(item),
    };
  });
  return out.sort((a, b) => a.line - b.line || a.column - b.column);
}

/**
 * Line and column of a JavaScriptCore SyntaxError raised while compiling a script: the line is on
 * the error, the column only in the stack's caret line ("file:2\n<source line>\n     ^").
 */
export function engineError(error: unknown): SourceError {
  const e = (error ?? {}) as { line?: unknown; message?: unknown; stack?: unknown };
  const line = typeof e.line === 'number' && e.line > 0 ? e.line : 1;
  const caretLine = typeof e.stack === 'string' ? e.stack.split('\n')[2] : undefined;
  const caret = caretLine && /^\s*\^\s*$/.test(caretLine) ? caretLine.indexOf('^') + 1 : 1;
  return { line, column: caret, message: typeof e.message === 'string' ? e.message : String(error) };
}

/** The message users see: "line 3, column 7: Unexpected ;". */
export const describeAt = (e: SourceError): string => `line ${e.line}, column ${e.column}: ${e.message}`;

/** Lines of a text as JavaScript counts them for positions. */
export const linesOf = (text: string): string[] => text.split(/\r\n|\r|\n/);
