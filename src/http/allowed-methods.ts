// The methods an application's routes serve at a path: a request whose path exists with other
// methods is 405 with `Allow`, not 404 (RFC 9110 §15.5.6): consulted when no route matched, and
// when a parameter route matched a path a literal route owns.

export type AllowedMethods = (pathname: string) => string[];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Compiles route patterns (`/api/v1/agents/:agentId`) once; the answer lists methods sorted, HEAD with GET. */
export function allowedMethodsOf(routes: readonly { method: string; path: string }[]): AllowedMethods {
  const patterns = routes
    .filter((r) => /^[A-Z]+$/.test(r.method))
    .map((r) => {
      const segments = r.path.split('/');
      return {
        method: r.method,
        pattern: new RegExp(`^${segments.map((s) => (s.startsWith(':') ? '[^/]+' : s === '*' ? '.*' : escapeRegExp(s))).join('/')}$`),
        // Which segments are literal: the router tries a literal before a parameter at each segment.
        shape: segments.map((s) => (s.startsWith(':') || s === '*' ? '0' : '1')).join(''),
      };
    });
  return (pathname) => {
    // Only the routes of the most literal shape the path matches serve it: /endpoints/openapi is
    // that literal route's, never /endpoints/{endpointId}'s.
    let best = '';
    const methods = new Set<string>();
    for (const { method, pattern, shape } of patterns) {
      if (!pattern.test(pathname)) continue;
      if (shape > best) {
        best = shape;
        methods.clear();
      }
      if (shape === best) methods.add(method);
    }
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  };
}
