// Percent-encoding: static segments compare in canonical encoded form, params are decoded once,
// malformed escapes never match.
import { describe, expect, test } from 'bun:test';
import { compileRouter } from '../../../runtime/router/index.ts';

function matcher(paths: string[]) {
  const router = compileRouter(paths.map((path) => ({ method: 'GET', path, value: path })));
  return (pathname: string) => {
    const m = router.match('GET', pathname);
    return m === null ? null : { route: m.value, params: { ...m.params } };
  };
}

/** What a WHATWG client (browser, fetch, Bun's `req.url`) sends for a path typed as text. */
const whatwg = (text: string) => new URL('http://h' + text).pathname;

describe('static segments with characters that travel encoded', () => {
  const match = matcher(['/café', '/a b', '/a|b', '/x[1]', '/a;b=c', '/百科/:page', '/cafe']);

  test('match the WHATWG serialization exactly', () => {
    for (const route of ['/café', '/a b', '/a|b', '/x[1]', '/a;b=c']) {
      expect(match(whatwg(route))?.route).toBe(route);
    }
    expect(whatwg('/café')).toBe('/caf%C3%A9');
    expect(match('/%E7%99%BE%E7%A7%91/intro')).toEqual({ route: '/百科/:page', params: { page: 'intro' } });
  });

  test('match lowercase hex, needless escapes and raw text too', () => {
    expect(match('/caf%c3%a9')?.route).toBe('/café');
    expect(match('/café')?.route).toBe('/café');
    expect(match('/a%7Cb')?.route).toBe('/a|b');
    expect(match('/a%7cb')?.route).toBe('/a|b');
    expect(match('/a%3Bb%3Dc')?.route).toBe('/a;b=c');
    expect(match('/%63%61%66%65')?.route).toBe('/cafe');
    expect(match('/a%20b')?.route).toBe('/a b');
    expect(match('/百科/intro')?.route).toBe('/百科/:page');
  });

  test('do not match other text', () => {
    expect(match('/cafe%CC%81')).toBeNull(); // e + combining accent: another string, no normalization
    expect(match('/a+b')).toBeNull(); // `+` is not a space in a path
    expect(match('/caf%C3')).toBeNull(); // malformed
  });

  test('a definition may be written encoded; both spellings are one route', () => {
    expect(matcher(['/caf%C3%A9'])('/caf%C3%A9')?.route).toBe('/caf%C3%A9');
    expect(matcher(['/caf%c3%a9'])('/café')?.route).toBe('/caf%c3%a9');
    expect(() => compileRouter([
      { method: 'GET', path: '/café', value: 1 },
      { method: 'GET', path: '/caf%C3%A9', value: 2 },
    ])).toThrow(/same shape|duplicate/);
  });

  test('a `%` that starts no valid escape in a definition is a literal percent sign', () => {
    const m = matcher(['/100%', '/50%off']);
    expect(m('/100%25')?.route).toBe('/100%');
    expect(m('/50%25off')?.route).toBe('/50%off');
    expect(m('/100%')).toBeNull(); // a lone `%` in a request is malformed
  });

  test('an encoded slash or question mark is text inside one segment', () => {
    const m = matcher(['/a%2Fb', '/q%3F', '/a/b']);
    expect(m('/a%2Fb')?.route).toBe('/a%2Fb');
    expect(m('/a%2fb')?.route).toBe('/a%2Fb');
    expect(m('/a/b')?.route).toBe('/a/b');
    expect(m('/q%3F')?.route).toBe('/q%3F');
  });

  test('a static route wins over a named one after normalization', () => {
    const m = matcher(['/café', '/:x']);
    expect(m('/caf%c3%a9')).toEqual({ route: '/café', params: {} });
    expect(m('/caf%C3%A8')).toEqual({ route: '/:x', params: { x: 'cafè' } });
  });

  test('a lone surrogate in a definition is taken as U+FFFD, as a URL serializer sends it', () => {
    expect(matcher(['/\uD800x'])('/%EF%BF%BDx')?.route).toBe('/\uD800x');
  });
});

describe('named segments', () => {
  const match = matcher(['/files/:name', '/files/:name/raw', '/users/:id/files/:name']);

  test('are decoded exactly once', () => {
    expect(match('/files/caf%C3%A9')?.params).toEqual({ name: 'café' });
    expect(match('/files/a%2520b')?.params).toEqual({ name: 'a%20b' });
    expect(match('/files/a%2Fb/raw')?.params).toEqual({ name: 'a/b' });
    expect(match('/files/a+b')?.params).toEqual({ name: 'a+b' });
    expect(match('/files/%F0%9F%98%80')?.params).toEqual({ name: '😀' });
    expect(match('/users/%31/files/%7e')?.params).toEqual({ id: '1', name: '~' });
  });

  test('keep raw text that arrives unencoded', () => {
    expect(match('/files/café')?.params).toEqual({ name: 'café' });
    expect(match('/files/a|b')?.params).toEqual({ name: 'a|b' });
  });

  test('a malformed escape means no match', () => {
    for (const bad of ['%', '%zz', '%E0%A4%A', '%C3', 'a%2', '%ED%A0%80' /* encoded surrogate */]) {
      expect(match(`/files/${bad}`)).toBeNull();
      expect(match(`/users/${bad}/files/x`)).toBeNull();
    }
  });

  test('an encoded space is a value, not an empty segment', () => {
    expect(match('/files/%20')?.params).toEqual({ name: ' ' });
  });
});
