// Rewrites of client text into LIKE and GLOB patterns. The results are bound values, never SQL;
// escaping here only decides which characters match literally.
import { fail } from '../model/index.ts';

/** Escapes %, _ and \ so the text matches literally in LIKE … ESCAPE '\'. */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Escapes the GLOB wildcards so the text matches literally. */
export const escapeGlob = (text: string): string => text.replace(/[*?[]/g, (c) => `[${c}]`);

/** A LIKE pattern must not end in a lone escape character (Postgres would reject it). */
export function checkLikePattern(pattern: string, pointer: string): void {
  let i = 0;
  while (i < pattern.length) {
    if (pattern[i] === '\\') {
      if (i === pattern.length - 1) fail(pointer, 'the pattern ends with an escape character (\\)');
      i += 2;
    } else i++;
  }
}

/** The GLOB pattern (case-sensitive in SQLite) equivalent to a LIKE pattern. */
export function likeToGlob(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === '\\') {
      i++;
      out += escapeGlob(pattern.charAt(i));
    } else if (c === '%') out += '*';
    else if (c === '_') out += '?';
    else out += escapeGlob(c);
  }
  return out;
}
