// Positions of syntax errors in submitted code: the engine's SyntaxError carries only a line and a
// caret; Babel's are read in ./parse.ts.

export interface SourceError {
  /** 1-based, in the text the caller checked (wrappers already subtracted). */
  line: number;
  column: number;
  message: string;
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
