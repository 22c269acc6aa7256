// A deliberately simple reference matcher: tries every route, compares decoded text, and picks
// the most specific by the rule as written (first differing segment: static beats named).
import type { RouteDefinition, RouteMatch } from '../../../runtime/router/index.ts';

type Part = { static: string } | { param: string };

const tryDecode = (text: string): string | null => {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
};

function parts(path: string): Part[] {
  if (path === '/') return [];
  return path
    .slice(1)
    .split('/')
    .map((s) => (s.startsWith(':') ? { param: s.slice(1) } : { static: (tryDecode(s) ?? s).toWellFormed() }));
}

export function referenceMatcher<T>(routes: readonly RouteDefinition<T>[]) {
  const compiled = routes.map((r) => ({ method: r.method, value: r.value, parts: parts(r.path) }));
  return (method: string, pathname: string): RouteMatch<T> | null => {
    if (!pathname.startsWith('/')) return null;
    const raw = pathname === '/' ? [] : pathname.slice(1).split('/');
    const decoded = raw.map(tryDecode);
    if (decoded.some((d) => d === null)) return null;
    let best: (typeof compiled)[number] | undefined;
    for (const route of compiled) {
      if (route.method !== method || route.parts.length !== decoded.length) continue;
      const fits = route.parts.every((p, i) => ('static' in p ? p.static === decoded[i] : decoded[i] !== ''));
      if (fits && (best === undefined || moreSpecific(route.parts, best.parts))) best = route;
    }
    if (best === undefined) return null;
    const params: Record<string, string> = Object.create(null);
    best.parts.forEach((p, i) => {
      if ('param' in p) params[p.param] = decoded[i]!;
    });
    return { value: best.value, params };
  };
}

function moreSpecific(a: readonly Part[], b: readonly Part[]): boolean {
  for (let i = 0; i < a.length; i++) {
    const aStatic = 'static' in a[i]!;
    if (aStatic !== 'static' in b[i]!) return aStatic;
  }
  return false;
}
