// Most specific wins: static beats named at every position, with backtracking; plus methods,
// the root, trailing slashes and empty segments.
import { describe, expect, test } from 'bun:test';
import { compileRouter } from '../../../runtime/router/index.ts';
import type { RouteDefinition } from '../../../runtime/router/index.ts';

const get = (path: string): RouteDefinition<string> => ({ method: 'GET', path, value: path });

function matcher(paths: string[]) {
  const router = compileRouter(paths.map(get));
  return (pathname: string) => {
    const m = router.match('GET', pathname);
    return m === null ? null : { route: m.value, params: { ...m.params } };
  };
}

describe('specificity', () => {
  const match = matcher(['/orders/:id', '/orders/new', '/orders/:id/items', '/orders/new/items', '/:section/new']);

  test('a static segment beats a named one', () => {
    expect(match('/orders/new')).toEqual({ route: '/orders/new', params: {} });
    expect(match('/orders/42')).toEqual({ route: '/orders/:id', params: { id: '42' } });
    expect(match('/orders/new/items')).toEqual({ route: '/orders/new/items', params: {} });
    expect(match('/orders/7/items')).toEqual({ route: '/orders/:id/items', params: { id: '7' } });
  });

  test('the first differing position decides, not the count of static segments', () => {
    // `/a/:x/:y` has one static segment and `/:p/b/c` two, but `/a` is static at position one.
    const m = matcher(['/a/:x/:y', '/:p/b/c']);
    expect(m('/a/b/c')).toEqual({ route: '/a/:x/:y', params: { x: 'b', y: 'c' } });
    expect(m('/z/b/c')).toEqual({ route: '/:p/b/c', params: { p: 'z' } });
    expect(match('/users/new')).toEqual({ route: '/:section/new', params: { section: 'users' } });
  });

  test('backtracks when the static branch fails deeper', () => {
    const m = matcher(['/a/b/:x', '/a/:y/c']);
    expect(m('/a/b/c')).toEqual({ route: '/a/b/:x', params: { x: 'c' } });
    expect(m('/a/z/c')).toEqual({ route: '/a/:y/c', params: { y: 'z' } });
    const deeper = matcher(['/a/b/c/:x/e', '/a/:y/c/d/:z', '/a/b/:w/d/f']);
    expect(deeper('/a/b/c/d/e')).toEqual({ route: '/a/b/c/:x/e', params: { x: 'd' } });
    expect(deeper('/a/b/c/d/f')).toEqual({ route: '/a/b/:w/d/f', params: { w: 'c' } });
    expect(deeper('/a/b/c/d/g')).toEqual({ route: '/a/:y/c/d/:z', params: { y: 'b', z: 'g' } });
    expect(deeper('/a/b/c/x/g')).toBeNull();
  });

  test('a static route with the same shape as the request beats every named route', () => {
    const m = matcher(['/:a/:b', '/x/:b', '/x/y']);
    expect(m('/x/y')?.route).toBe('/x/y');
    expect(m('/x/z')?.route).toBe('/x/:b');
    expect(m('/w/y')?.route).toBe('/:a/:b');
  });

  test('many static siblings (hash lookup) keep the same precedence as few', () => {
    const siblings = Array.from({ length: 40 }, (_, i) => `/s/k${i}/:x`);
    const m = matcher([...siblings, '/s/:key/end']);
    expect(m('/s/k17/v')).toEqual({ route: '/s/k17/:x', params: { x: 'v' } });
    expect(m('/s/k17/end')).toEqual({ route: '/s/k17/:x', params: { x: 'end' } });
    expect(m('/s/other/end')).toEqual({ route: '/s/:key/end', params: { key: 'other' } });
    expect(m('/s/k40/v')).toBeNull();
  });

  test('segment count must be equal', () => {
    const m = matcher(['/a/:x']);
    expect(m('/a')).toBeNull();
    expect(m('/a/b/c')).toBeNull();
  });
});

describe('root, trailing slash, empty segments', () => {
  test('`/` is a route of its own and matches only `/`', () => {
    const m = matcher(['/', '/:x']);
    expect(m('/')).toEqual({ route: '/', params: {} });
    expect(m('/a')).toEqual({ route: '/:x', params: { x: 'a' } });
    expect(matcher(['/:x'])('/')).toBeNull();
    expect(matcher(['/a'])('/')).toBeNull();
  });

  test('a trailing slash is significant', () => {
    const m = matcher(['/orders/:id', '/orders']);
    expect(m('/orders/1/')).toBeNull();
    expect(m('/orders/')).toBeNull();
    expect(m('/orders')?.route).toBe('/orders');
  });

  test('a named segment never matches an empty segment', () => {
    const m = matcher(['/a/:x/b', '/:y']);
    expect(m('/a//b')).toBeNull();
    expect(m('//')).toBeNull();
  });

  test('a pathname must start with a slash', () => {
    const m = matcher(['/a', '/:x']);
    expect(m('a')).toBeNull();
    expect(m('')).toBeNull();
    expect(m('*')).toBeNull();
  });

  test('a query string is not stripped: callers pass the pathname only', () => {
    expect(matcher(['/a'])('/a?x=1')).toBeNull();
  });
});

describe('methods', () => {
  const router = compileRouter<string>([
    { method: 'GET', path: '/items/:id', value: 'get' },
    { method: 'DELETE', path: '/items/:id', value: 'delete' },
    { method: 'POST', path: '/items', value: 'post' },
    { method: 'PUT', path: '/items/:id', value: 'put' },
    { method: 'PATCH', path: '/items/:itemId', value: 'patch' },
  ]);

  test('each method has its own routes', () => {
    expect(router.match('GET', '/items/1')?.value).toBe('get');
    expect(router.match('DELETE', '/items/1')?.value).toBe('delete');
    expect(router.match('PUT', '/items/1')?.value).toBe('put');
    expect({ ...router.match('PATCH', '/items/1')?.params }).toEqual({ itemId: '1' });
    expect(router.match('POST', '/items')?.value).toBe('post');
    expect(router.match('GET', '/items')).toBeNull();
    expect(router.match('POST', '/items/1')).toBeNull();
  });

  test('HEAD is not special, methods are case-sensitive, unknown methods match nothing', () => {
    expect(router.match('HEAD', '/items/1')).toBeNull();
    expect(router.match('get', '/items/1')).toBeNull();
    expect(router.match('OPTIONS', '/items')).toBeNull();
  });

  test('the same shape under two methods is not a duplicate', () => {
    expect(router.size).toBe(5);
  });
});

describe('results', () => {
  test('a static match has no params and its result is read-only', () => {
    const router = compileRouter([get('/a')]);
    const m = router.match('GET', '/a')!;
    expect(Object.keys(m.params)).toEqual([]);
    expect(Object.isFrozen(m)).toBe(true);
    expect(Object.isFrozen(m.params)).toBe(true);
  });

  test('each named match gets a fresh params object', () => {
    const router = compileRouter([get('/a/:x')]);
    const first = router.match('GET', '/a/1')!;
    const second = router.match('GET', '/a/2')!;
    expect(first.params.x).toBe('1');
    expect(second.params.x).toBe('2');
  });

  test('an empty router matches nothing', () => {
    const router = compileRouter<string>([]);
    expect(router.size).toBe(0);
    expect(router.match('GET', '/')).toBeNull();
  });
});
