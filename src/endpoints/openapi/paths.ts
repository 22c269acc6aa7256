// Endpoint paths in OpenAPI form: `/orders/:orderId` → `/orders/{orderId}`, one path item per
// route shape (two definitions whose named segments sit at the same places share it), and stable
// operation ids derived from method and path.
import { createHash } from 'node:crypto';

export type PathSegment = { kind: 'static'; text: string } | { kind: 'param'; name: string };

export function splitPath(path: string): PathSegment[] {
  if (path === '/' || path === '') return [];
  return path
    .slice(1)
    .split('/')
    .map((part): PathSegment => (part.startsWith(':') ? { kind: 'param', name: part.slice(1) } : { kind: 'static', text: part }));
}

/** The shape two paths share exactly when OpenAPI would see them as the same templated path. */
export const shapeOf = (segments: PathSegment[]): string =>
  '/' + segments.map((s) => (s.kind === 'param' ? '{}' : encodeBraces(s.text))).join('/');

/** The OpenAPI path key with the given parameter names at the named positions. */
export function templateOf(segments: PathSegment[], names: string[]): string {
  let i = 0;
  return '/' + segments.map((s) => (s.kind === 'param' ? `{${names[i++]}}` : encodeBraces(s.text))).join('/');
}

export const paramNames = (segments: PathSegment[]): string[] => segments.flatMap((s) => (s.kind === 'param' ? [s.name] : []));

// A literal brace in a static segment would read as a template in the path key.
const encodeBraces = (text: string) => text.replace(/\{/g, '%7B').replace(/\}/g, '%7D');

/** `GET /orders/:orderId/items` → `getOrdersByOrderIdItems`. */
function baseOperationId(method: string, segments: PathSegment[]): string {
  const words = segments.flatMap((s) => (s.kind === 'param' ? ['by', ...wordsOf(s.name)] : wordsOf(safeDecode(s.text))));
  return method.toLowerCase() + (words.length === 0 ? 'Root' : words.map(capitalize).join(''));
}

/**
 * Unique operation ids. An id shared by two operations (`/a-b` and `/a_b` both give `getAB`)
 * gets a short hash of method and path on each of them, so an id depends only on its own
 * endpoint unless such a clash exists.
 */
export function operationIds(operations: { method: string; path: string; segments: PathSegment[] }[]): string[] {
  const bases = operations.map((o) => baseOperationId(o.method, o.segments));
  const counts = new Map<string, number>();
  for (const b of bases) counts.set(b, (counts.get(b) ?? 0) + 1);
  const used = new Set<string>();
  return operations.map((o, i) => {
    let id = bases[i]!;
    if (counts.get(id)! > 1) id += '_' + createHash('sha256').update(`${o.method} ${o.path}`).digest('hex').slice(0, 8);
    // Only a definition repeated verbatim (never two active ones) reaches this.
    for (let n = 2; used.has(id); n++) id = `${bases[i]}_${n}`;
    used.add(id);
    return id;
  });
}

const wordsOf = (text: string) => text.split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/).filter((w) => w !== '');
const capitalize = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
