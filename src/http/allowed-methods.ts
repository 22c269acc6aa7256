// The methods an application's routes serve at a path: a request whose path exists with other
// methods is 405 with `Allow`, not 404 (RFC 9110 §15.5.6). Only consulted when no route matched.

export type AllowedMethods = (pathname: string) => string[];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Compiles route patterns (`/api/v1/agents/:agentId`) once; the answer lists methods sorted, HEAD with GET. */
export function allowedMethodsOf(routes: readonly { method: string; path: string }[]): AllowedMethods {
  const patterns = routes
    .filter((r) => /^[A-Z]+$/.test(r.method))
    .map((r) => ({
      method: r.method,
      pattern: new RegExp(`^${r.path.split('/').map((s) => (s.startsWith(':') ? '[^/]+' : s === '*' ? '.*' : escapeRegExp(s))).join('/')}$`),
    }));
  return (pathname) => {
    const methods = new Set<string>();
    for (const { method, pattern } of patterns) if (pattern.test(pathname)) methods.add(method);
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  };
}
