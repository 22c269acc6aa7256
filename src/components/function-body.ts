// Checks that a lowcode element's code is a valid body of `async (api, input, results) => { … }`.
// Parsing only: nothing is ever run here. Bun.Transpiler gives the clearest messages; the engine's
// own compiler (vm.Script, which compiles without running) then catches what the transpiler lets
// through, and a second wrapper catches code that closes the body early (`}; more(); {`).
import { Script } from 'node:vm';
import { engineError, linesOf, transpilerErrors, type SourceError } from './build-errors.ts';

const transpiler = new Bun.Transpiler({ loader: 'js' });

/**
 * Code that escapes one wrapper cannot be valid in both: after the escaping `}`, the parenthesised
 * arrow needs `,` or `)` while the declaration needs a statement, and neither can start the other.
 */
const ARROW = { head: '(async (api, input, results) => {\n', tail: '\n});' };
const DECLARATION = { head: 'async function element(api, input, results) {\n', tail: '\n}' };

/** Problems of one element body, positioned in the code itself; empty when it compiles. */
export function functionBodyErrors(code: string): SourceError[] {
  const inArrow = ARROW.head + code + ARROW.tail;
  try {
    transpiler.transformSync(inArrow);
  } catch (error) {
    // The first error only: the rest are usually the parser stumbling over the first.
    return transpilerErrors(error).slice(0, 1).map((e) => inCode(e, code));
  }
  for (const wrapper of [ARROW, DECLARATION]) {
    try {
      // Compiles, never runs (no runInContext / runInThisContext).
      new Script(wrapper.head + code + wrapper.tail, { filename: 'element.js' });
    } catch (error) {
      return [inCode(engineError(error), code)];
    }
  }
  return [];
}

/** Maps a position in a wrapper (whose head is one line) back into the code. */
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
