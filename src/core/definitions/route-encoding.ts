// Canonical percent-encoding of path segments, so a route's static text and a request's raw
// pathname are compared in one form (one string compare, never a per-request decode on the hot path).
//
// Canonical form, decided here:
// - It is the form a WHATWG URL serializer (browsers, fetch, Bun's `req.url`) sends for the
//   segment's text: UTF-8, percent-encoded with UPPERCASE hex for controls, space, `"` `#` `%`
//   `<` `>` `?` `^` `` ` `` `{` `}`, DEL and every non-ASCII character, and also `/` and `\`
//   (inside a segment they can only travel encoded). Everything else stays raw, including the
//   sub-delims `!$&'()+,;=`, `:` `@` `[` `]` `|`, because a WHATWG client leaves them raw.
// - So a request that came through `new URL(...)` and holds no `%` is already canonical, and
//   the router compares it as is. A request holding `%` (lowercase hex, an escape of a
//   character that need not be escaped such as `%61`, `%7C` for `|`) or raw characters a
//   WHATWG client would have escaped is decoded once and re-encoded canonically first.

/** Characters that a canonical segment never holds raw (`%` only as the start of an escape). */
const NON_CANONICAL = /[\x00-\x20"#%/<>?\\^`{}\x7F-\uFFFF]/;

/** The same over a whole pathname, where `/` is the separator. */
const PATH_NON_CANONICAL = /[\x00-\x20"#%<>?\\^`{}\x7F-\uFFFF]/;

/** What `encodeURIComponent` escapes but a WHATWG path keeps raw: `$&+,:;=@[]|`. */
const OVER_ESCAPED = /%(?:2[46BC]|3[ABD]|40|5[BD]|7C)/g;

const unescapeOne = (escape: string): string => String.fromCharCode(parseInt(escape.slice(1), 16));

/** The canonical encoded form of a segment's (decoded) text. */
export function encodeSegment(text: string): string {
  if (!NON_CANONICAL.test(text)) return text;
  // A lone surrogate cannot be UTF-8 encoded; a WHATWG serializer sends U+FFFD for it.
  return encodeURIComponent(text.toWellFormed()).replace(OVER_ESCAPED, unescapeOne);
}

/** Decodes a segment once; `null` when an escape is malformed (e.g. `%zz`, `%C3` alone). */
export function decodeSegment(raw: string): string | null {
  if (raw.indexOf('%') === -1) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

/**
 * Whether a raw request pathname must be normalised before it can be compared with canonical
 * keys: it holds an escape or a character a canonical segment never holds raw.
 */
export function needsNormalising(pathname: string): boolean {
  return PATH_NON_CANONICAL.test(pathname);
}
