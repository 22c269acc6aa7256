// The GitHub API route set: every sample path resolves to the most specific route, with its params.
import { describe, expect, test } from 'bun:test';
import { compileRouter } from '../../../runtime/router/index.ts';
import { referenceMatcher } from './reference.ts';

interface GithubRoute {
  method: string;
  pattern: string;
  sample: string;
}

const file = new URL('../../../../shared/bench-data/github-api-routes.json', import.meta.url);
const { routes } = (await Bun.file(file).json()) as { routes: GithubRoute[] };
const definitions = routes.map((r, i) => ({ method: r.method, path: r.pattern, value: i }));
const router = compileRouter(definitions);
const reference = referenceMatcher(definitions);

/** The params a sample gives its own pattern, read off segment by segment. */
function ownParams(pattern: string, sample: string): Record<string, string> {
  const names = pattern.split('/');
  const values = sample.split('/');
  const params: Record<string, string> = {};
  names.forEach((name, i) => {
    if (name.startsWith(':')) params[name.slice(1)] = decodeURIComponent(values[i]!);
  });
  return params;
}

describe('GitHub API routes', () => {
  test('the set is the one expected', () => {
    expect(router.size).toBe(routes.length);
    expect(routes.length).toBe(203);
  });

  test.each(routes.map((r, i) => [`${r.method} ${r.pattern}`, r, i] as const))('%s', (_, route, index) => {
    const match = router.match(route.method, route.sample);
    const expected = reference(route.method, route.sample);
    expect(expected).not.toBeNull();
    expect(match?.value).toBe(expected!.value);
    expect({ ...match!.params }).toEqual({ ...expected!.params });
    // Where the sample resolves to its own pattern, the params are its named segments.
    if (expected!.value === index) expect({ ...match!.params }).toEqual(ownParams(route.pattern, route.sample));
  });

  // In this set no sample is shadowed by a more specific route; the case is covered in specificity.test.ts.
  test('every sample resolves to its own pattern', () => {
    const own = routes.filter((r, i) => router.match(r.method, r.sample)?.value === i).length;
    expect(own).toBe(routes.length);
  });

  test('a sample path under another method does not match a route of this one', () => {
    // POST /authorizations exists; PATCH does not exist for it.
    expect(router.match('PATCH', '/authorizations')).toBeNull();
    expect(router.match('HEAD', '/authorizations')).toBeNull();
  });
});
