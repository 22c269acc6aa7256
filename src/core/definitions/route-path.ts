// Parses and validates an Endpoint route path (`/orders/:orderId/items`) into segments.
// The router uses it as a guard; the control plane may call it to validate before saving.
import { decodeSegment, encodeSegment } from './route-encoding.ts';

const MAX_ROUTE_PATH_LENGTH = 2048;

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

// The common case, checked with one test: every static segment holds only characters that are
// canonical as written (no `%`, nothing a URL serializer escapes) and every name is valid.
const PLAIN_PATH = /^(?:\/(?:[A-Za-z0-9\-._~!$&'()+,;=@[\]|][A-Za-z0-9\-._~!$&'()+,;=:@[\]|]*|:[A-Za-z_][A-Za-z0-9_]*))+$/;

// `*` would read as a wildcard, `?` and `#` as a query or fragment, and controls are invisible:
// refusing them keeps a definition meaning what it looks like.
const FORBIDDEN_IN_SEGMENT = /[*?#\x00-\x1F\x7F]/;

export type RouteSegment =
  | { readonly kind: 'static'; /** canonical encoded form, see encoding.ts */ readonly key: string }
  | { readonly kind: 'param'; readonly name: string };

export type ParsedRoutePath =
  | {
      readonly ok: true;
      readonly segments: readonly RouteSegment[];
      /** Every static key is its segment as written (nothing was decoded or escaped). */
      readonly asWritten: boolean;
    }
  | { readonly ok: false; readonly reason: string };

/**
 * Splits a route path into static and named segments. `/` alone is the root (no segments).
 * A static segment is taken as text: a valid percent-escape in it is decoded (`/caf%C3%A9` and
 * `/café` are the same route), anything else is literal (`/100%` means a literal percent sign).
 */
export function parseRoutePath(path: string): ParsedRoutePath {
  if (path.length > MAX_ROUTE_PATH_LENGTH) return fail(`longer than ${MAX_ROUTE_PATH_LENGTH} characters`);
  if (path.charCodeAt(0) !== 47 /* / */) return fail('must start with "/"');
  if (path === '/') return { ok: true, segments: [], asWritten: true };

  const plain = PLAIN_PATH.test(path);
  let asWritten = true;
  const segments: RouteSegment[] = [];
  let names: string[] | undefined;
  for (let start = 1, end = 0; end !== path.length; start = end + 1) {
    end = path.indexOf('/', start);
    if (end === -1) end = path.length;
    if (path.charCodeAt(start) === 58 /* : */) {
      const name = path.slice(start + 1, end);
      if (!plain && !PARAM_NAME.test(name)) return fail(`parameter ":${name}" is not ":" followed by [A-Za-z_][A-Za-z0-9_]*`);
      if (names === undefined) names = [name];
      else if (names.includes(name)) return fail(`parameter ":${name}" appears twice`);
      else names.push(name);
      segments.push({ kind: 'param', name });
      continue;
    }
    const part = path.slice(start, end);
    if (plain) {
      if (part === '.' || part === '..') return fail(`segment "${part}" is a dot segment`);
      segments.push({ kind: 'static', key: part });
      continue;
    }
    if (part === '') return fail('has an empty segment');
    if (FORBIDDEN_IN_SEGMENT.test(part)) return fail(`segment "${part}" holds "*", "?", "#" or a control character`);
    const text = decodeSegment(part) ?? part;
    // Dot segments are resolved away by every URL parser, so such a route could never match.
    if (text === '.' || text === '..') return fail(`segment "${part}" is a dot segment`);
    const key = encodeSegment(text);
    if (key !== part) asWritten = false;
    segments.push({ kind: 'static', key });
  }
  return { ok: true, segments, asWritten };
}

/**
 * The shape of a valid path, or null for an invalid one. Two routes of one method conflict
 * exactly when their shapes are equal: same canonical static keys, names at the same positions
 * (so `/café` and `/caf%C3%A9` conflict, and so do `/a/:x` and `/a/:y`).
 */
export function routeShape(path: string): string | null {
  const parsed = parseRoutePath(path);
  if (!parsed.ok) return null;
  // A static key may be `:x` (from the text `%3Ax`), so a name is written as a lone `%`,
  // which no canonical key holds (there `%` always starts an escape).
  let shape = '';
  for (const s of parsed.segments) shape += s.kind === 'static' ? '/' + s.key : '/%';
  return shape === '' ? '/' : shape;
}

function fail(reason: string): ParsedRoutePath {
  return { ok: false, reason };
}
