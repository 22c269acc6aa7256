// A scan of raw JSON text for its nesting depth, before parsing: validators, serializers and
// component code all recurse, so a 100,000-deep document must be refused before it reaches them.

/** True when `text` nests arrays/objects deeper than `limit` (brackets inside strings are ignored). */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
    }
  }
  return false;
}

/** Control-plane bodies and runtime inputs nest at most this deep. */
export const MAX_JSON_DEPTH = 128;
