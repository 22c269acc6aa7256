// Endpoint path rules (issue 4 item 3): `/`-separated static segments and `:name` segments.
// Whatever passes here must compile in the runtime's router, so its parser has the last word.
import type { Violation } from '../http/index.ts';
import { parseRoutePath, routeShape as routerShape } from './route-path.ts';

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_PATH_LENGTH = 2048;

/** Characters a static segment may hold as written: RFC 3986 pchar minus `:` at the start, plus percent-escapes and non-ASCII. */
const STATIC_SEGMENT = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=@]|%[0-9A-Fa-f]{2}|[^\x00-\x7F])(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2}|[^\x00-\x7F])*$/;

/** Every problem with a path, pointing at `pointer` (empty when valid). */
export function pathViolations(path: string, pointer = '/path'): Violation[] {
  const fail = (message: string): Violation[] => [{ pointer, message }];
  if (path.length > MAX_PATH_LENGTH) return fail(`Paths are at most ${MAX_PATH_LENGTH} characters`);
  if (!path.startsWith('/')) return fail('A path starts with /');
  if (path === '/') return [];
  // The runtime origin answers these itself, and never serves control-plane paths.
  if (path === '/healthz' || path === '/readyz' || path === '/metrics' || path === '/api/v1' || path.startsWith('/api/v1/')) {
    return fail('This path is reserved by the platform (/healthz, /readyz, /metrics, /api/v1/…)');
  }
  const segments = path.slice(1).split('/');
  const names = new Set<string>();
  for (const [i, segment] of segments.entries()) {
    if (segment === '') return fail(i === segments.length - 1 ? 'A path does not end with /' : 'Empty segments (//) are not allowed');
    if (segment === '.' || segment === '..') return fail('Dot segments (. and ..) are not allowed');
    if (segment.includes('*')) return fail('Wildcards (*) are not supported; use a :name segment');
    if (segment.startsWith(':')) {
      const name = segment.slice(1);
      if (!PARAM_NAME.test(name)) return fail(`Segment ${segment}: a name is [A-Za-z_][A-Za-z0-9_]*`);
      if (names.has(name)) return fail(`Segment ${segment}: the name is used twice`);
      names.add(name);
    } else if (!STATIC_SEGMENT.test(segment)) {
      return fail(`Segment ${JSON.stringify(segment)} holds characters a path cannot carry`);
    }
  }
  const parsed = parseRoutePath(path);
  return parsed.ok ? [] : fail(`Invalid path: ${parsed.reason}`);
}

/**
 * Method + the router's canonical shape (escapes normalised, named segments blanked): two active
 * definitions with one shape match the same requests, so they conflict.
 */
export function endpointShape(method: string, path: string): string {
  return `${method} ${routerShape(path) ?? path}`;
}

/** Named segments of a path, in order. */
const pathParams = (path: string): string[] =>
  path.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1));
