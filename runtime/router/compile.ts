// Builds the immutable router from route definitions: per method, a map of fully static paths
// (answered with one lookup) and a segment tree for the rest.
import { decodeSegment, encodeSegment, needsNormalising, parseRoutePath, type RouteSegment } from '../../src/core/definitions/index.ts';
import { createNode, paramChild, staticChild, walk } from './tree.ts';
import type { Leaf, Node } from './tree.ts';
import type { RouteDefinition, RouteMatch, Router } from './types.ts';

export const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type RouteMethod = (typeof ROUTE_METHODS)[number];

interface MethodTable<T> {
  /** Canonical pathname → its match, built once and frozen so a static hit allocates nothing. */
  readonly statics: Map<string, RouteMatch<T>>;
  readonly root: Node<T>;
}

type Tables<T> = Record<string, MethodTable<T> | undefined>;

const NO_PARAMS: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

/**
 * Compiles route definitions into a router. Throws a plain Error on an unknown method, an
 * invalid path or two routes with the same method and shape; the control plane validates first,
 * so this is a guard.
 */
export function compileRouter<T>(routes: readonly RouteDefinition<T>[]): Router<T> {
  // A null-prototype object, not a Map: ~15 ns faster per lookup for these few keys in a
  // micro-benchmark, and a request method such as `__proto__` or `toString` finds nothing.
  const tables = Object.create(null) as Tables<T>;
  let encodedKeys = false;
  for (const route of routes) encodedKeys = add(tables, route) || encodedKeys;
  // Filled by walk(); match() is synchronous, so one scratch array per router is safe.
  const found: string[] = [];
  const size = routes.length;

  return {
    size,
    match(method: string, pathname: string): RouteMatch<T> | null {
      const table = tables[method];
      if (table === undefined) return null;
      const hit = table.statics.get(pathname);
      if (hit !== undefined) return hit;
      // With escapes among the static keys, a raw `é` must first become `%C3%A9` to compare.
      if (encodedKeys && needsNormalising(pathname)) return matchNormalised(table, pathname);
      const leaf = pathname.charCodeAt(0) === 47 /* / */ ? walk(table.root, pathname, 1, 0, found, false) : null;
      // The walk takes no named segment holding `%`, so the values found are already decoded.
      if (leaf !== null) return { value: leaf.value, params: params(leaf, found, 0) };
      // Nothing matched, or the walk gave up at a named segment holding `%`. With no escape
      // among the keys, only a named segment can take a segment holding `%`, so the walk never
      // matches such a pathname: it is decoded, re-encoded and walked again.
      return pathname.indexOf('%') === -1 ? null : matchNormalised(table, pathname);
    },
  };
}

/** Adds one route; answers whether one of its static keys holds an escape. */
function add<T>(tables: Tables<T>, route: RouteDefinition<T>): boolean {
  const { method, path, value } = route;
  if (!(ROUTE_METHODS as readonly string[]).includes(method)) {
    throw new Error(`route ${method} ${path}: method must be one of ${ROUTE_METHODS.join(', ')}`);
  }
  const parsed = parseRoutePath(path);
  if (!parsed.ok) throw new Error(`route ${method} ${path}: path ${parsed.reason}`);

  const table = (tables[method] ??= { statics: new Map(), root: createNode() });

  const { segments, asWritten } = parsed;
  let names: string[] | undefined;
  for (const segment of segments) if (segment.kind === 'param') (names ??= []).push(segment.name);
  // As written, a key holds `%` exactly where the path does (a name never does).
  const encoded = asWritten ? path.indexOf('%') !== -1 : segments.some((s) => s.kind === 'static' && s.key.indexOf('%') !== -1);

  if (names === undefined) {
    const key = asWritten ? path : '/' + segments.map(keyOf).join('/');
    if (table.statics.has(key)) throw new Error(`route ${method} ${path}: duplicates another route of the same shape`);
    table.statics.set(key, Object.freeze({ value, params: NO_PARAMS }));
    return encoded;
  }

  let node = table.root;
  const positions: number[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.kind === 'static') node = staticChild(node, segment.key);
    else {
      node = paramChild(node);
      positions.push(i);
    }
  }
  if (node.leaf !== null) {
    throw new Error(`route ${method} ${path}: same shape as ${method} ${node.leaf.path}`);
  }
  node.leaf = { value, path, names, positions } satisfies Leaf<T>;
  return encoded;
}

const keyOf = (segment: RouteSegment) => (segment.kind === 'static' ? segment.key : '');

/** Params as a null-prototype object, so names like `__proto__` are plain own properties. */
function params<T>(leaf: Leaf<T>, values: readonly string[], offset: number): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  const { names, positions } = leaf;
  for (let i = 0; i < names.length; i++) out[names[i]!] = values[positions[i]! + offset]!;
  return out;
}

/**
 * The slow path, for a pathname holding `%` or characters a WHATWG client would have escaped:
 * each segment is decoded once; the canonical re-encoding is compared with static keys and the
 * decoded text becomes the parameter value. A malformed escape anywhere means no match, since
 * that segment could match neither a static key nor a decodable parameter.
 */
function matchNormalised<T>(table: MethodTable<T>, pathname: string): RouteMatch<T> | null {
  const raw = pathname.split('/');
  if (raw[0] !== '') return null;
  const canonical: string[] = [];
  const decoded: string[] = [];
  for (const segment of raw) {
    const text = decodeSegment(segment);
    if (text === null) return null;
    decoded.push(text);
    canonical.push(encodeSegment(text));
  }
  const path = canonical.join('/');
  const hit = table.statics.get(path);
  if (hit !== undefined) return hit;
  const leaf = walk(table.root, path, 1, 0, [], true);
  // decoded[0] is the text before the leading slash, so segment i is decoded[i + 1].
  return leaf === null ? null : { value: leaf.value, params: params(leaf, decoded, 1) };
}
