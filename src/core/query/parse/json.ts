// JSON-string parameters: bounded in length and nesting before JSON.parse ever sees them, so a
// hostile string can neither exhaust the stack nor hold the parser for long.
import { fail, LIMITS } from '../model/index.ts';

/** Parses a JSON parameter, or throws a violation at `pointer`. */
export function parseJson(text: string, pointer: string): unknown {
  if (text.length > LIMITS.paramLength) fail(pointer, `the value is longer than ${LIMITS.paramLength} characters`);
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > LIMITS.jsonDepth) fail(pointer, `the JSON value is nested deeper than ${LIMITS.jsonDepth} levels`);
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return fail(pointer, 'the value is not valid JSON');
  }
}

/** True when a string parameter is meant as JSON (an object or array). */
export const looksLikeJson = (text: string): boolean => /^\s*[[{]/.test(text);
