// compileRouter's guard: invalid paths, unknown methods and duplicate shapes throw; hostile
// names and texts are data, never structure.
import { describe, expect, test } from 'bun:test';
import { compileRouter, parseRoutePath, routeShape } from '../../../runtime/router/index.ts';

const build = (...paths: string[]) => compileRouter(paths.map((path, i) => ({ method: 'GET', path, value: i })));

describe('invalid paths', () => {
  const invalid: [string, string][] = [
    ['empty', ''],
    ['no leading slash', 'orders'],
    ['empty segment', '/orders//items'],
    ['trailing slash', '/orders/'],
    ['double slash root', '//'],
    ['wildcard segment', '/files/*'],
    ['star inside a segment', '/files/a*b'],
    ['dot-dot', '/a/../b'],
    ['dot', '/a/./b'],
    ['encoded dot-dot', '/a/%2E%2E/b'],
    ['question mark', '/search?q'],
    ['hash', '/a#b'],
    ['control character', '/a\nb'],
    ['colon alone', '/a/:'],
    ['name starting with a digit', '/a/:1x'],
    ['name with a dash', '/a/:order-id'],
    ['name with a quote', "/a/:x'y"],
    ['name with unicode', '/a/:café'],
    ['duplicate names', '/a/:id/b/:id'],
    ['too long', '/' + 'a'.repeat(2048)],
  ];

  test.each(invalid)('%s throws a plain Error', (_, path) => {
    expect(() => build(path)).toThrow(Error);
    expect(parseRoutePath(path).ok).toBe(false);
  });

  test('the error is a plain Error naming the method and path', () => {
    expect(() => build('/a//b')).toThrow('route GET /a//b: path has an empty segment');
    try {
      build('/a/*');
    } catch (error) {
      expect(Object.getPrototypeOf(error)).toBe(Error.prototype);
    }
    expect.assertions(2);
  });

  test('2048 characters is the limit, inclusive', () => {
    const path = '/' + 'a'.repeat(2047);
    expect(build(path).match('GET', path)).not.toBeNull();
  });

  test('valid edge cases', () => {
    const router = build('/', '/:_', '/a:b/:A_1', '/%3Aid', '/~user/x-y.z');
    expect(router.match('GET', '/')?.value).toBe(0);
    expect({ ...router.match('GET', '/v')?.params }).toEqual({ _: 'v' });
    expect({ ...router.match('GET', '/a:b/c')?.params }).toEqual({ A_1: 'c' });
    expect(router.match('GET', '/:id')?.value).toBe(3); // a static segment whose text starts with ':'
    expect(router.match('GET', '/~user/x-y.z')?.value).toBe(4);
  });
});

describe('methods', () => {
  test.each(['HEAD', 'OPTIONS', 'get', 'TRACE', ''])('%p is refused', (method) => {
    expect(() => compileRouter([{ method, path: '/a', value: 1 }])).toThrow(/method must be one of/);
  });
});

describe('duplicates', () => {
  test('the same method and shape throws, whatever the param names', () => {
    expect(() => build('/a/:x', '/a/:y')).toThrow('route GET /a/:y: same shape as GET /a/:x');
    expect(() => build('/a', '/a')).toThrow(/duplicates/);
    expect(() => build('/', '/')).toThrow(/duplicates/);
    expect(() => build('/a/:x/b', '/a/:y/b')).toThrow(Error);
  });

  test('different shapes are not duplicates', () => {
    expect(build('/a/:x', '/a/b', '/:a/b', '/a/:x/:y').size).toBe(4);
  });

  test('routeShape tells the control plane which paths conflict', () => {
    expect(routeShape('/a/:x')).toBe('/a/%');
    expect(routeShape('/a/:y')).toBe(routeShape('/a/:x'));
    expect(routeShape('/café')).toBe(routeShape('/caf%C3%A9'));
    expect(routeShape('/%41')).toBe(routeShape('/A'));
    expect(routeShape('/%3Aid/:id')).toBe('/:id/%');
    expect(routeShape('/:id/:id2')).not.toBe(routeShape('/%3Aid/:id2'));
    expect(routeShape('/')).toBe('/');
    expect(routeShape('/a//b')).toBeNull();
  });
});

describe('hostile names and texts', () => {
  const names = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

  test('parameter names that are Object.prototype members are plain own properties', () => {
    const router = compileRouter([{ method: 'GET', path: '/' + names.map((n) => ':' + n).join('/'), value: 'v' }]);
    const m = router.match('GET', '/' + names.map((_, i) => `v${i}`).join('/'))!;
    expect(Object.getPrototypeOf(m.params)).toBeNull();
    expect(Object.keys(m.params)).toEqual(names);
    names.forEach((name, i) => expect(Object.getOwnPropertyDescriptor(m.params, name)?.value).toBe(`v${i}`));
    // Nothing leaked into the shared prototype.
    expect(({} as Record<string, unknown>).v0).toBeUndefined();
    expect(Object.prototype.toString).toBe(Object.prototype.toString);
    expect(typeof ({} as { constructor: unknown }).constructor).toBe('function');
  });

  test('a param named __proto__ given a JSON-looking value stays a string', () => {
    const router = compileRouter([{ method: 'GET', path: '/p/:__proto__', value: 1 }]);
    const m = router.match('GET', '/p/%7B%22polluted%22%3Atrue%7D')!;
    expect(m.params.__proto__).toBe('{"polluted":true}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  const texts = [`'`, `"`, '\\', '`${process.exit(1)}`', '</script><script>alert(1)</script>', '${x}', '\u2028\u2029',
    'ünïcödé', '😀', '__proto__', 'constructor', 'hasOwnProperty', '%00'];

  test('static segments with quotes, backslashes, markup, template syntax and unicode are matched as text', () => {
    // `%` would read as an escape, so the text '%00' is written %2500 in the definition.
    const definitions = texts.map((text, i) => ({
      method: 'GET',
      path: '/t/' + text.replaceAll('%', '%25').replaceAll('/', '%2F'),
      value: i,
    }));
    const router = compileRouter([...definitions, { method: 'GET', path: '/t/:other', value: -1 }]);
    texts.forEach((text, i) => {
      expect(router.match('GET', '/t/' + encodeURIComponent(text))?.value).toBe(i);
      expect(router.match('GET', new URL('http://h/t/' + encodeURIComponent(text)).pathname)?.value).toBe(i);
    });
    expect(router.match('GET', '/t/else')?.value).toBe(-1);
    expect(router.match('GET', '/t/%00')).toEqual({ value: -1, params: expect.anything() });
    expect(router.match('GET', '/t/%00')!.params.other).toBe('\u0000');
  });

  test('hostile texts as param values come back verbatim', () => {
    const router = compileRouter([{ method: 'GET', path: '/v/:value', value: 1 }]);
    for (const text of texts) expect(router.match('GET', '/v/' + encodeURIComponent(text))!.params.value).toBe(text);
  });
});
