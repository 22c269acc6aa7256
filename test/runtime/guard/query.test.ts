// GET guards validate the query: queryToObject, then coercion driven by the schema's types.
import { describe, expect, test } from 'bun:test';
import { compileGuardSchema, queryToObject, type CompiledGuard } from '../../../runtime/guard/index.ts';

function compile(schema: unknown): CompiledGuard {
  const result = compileGuardSchema(schema);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.guard;
}

const query = (text: string) => queryToObject(new URLSearchParams(text));

describe('queryToObject', () => {
  test('strings, repeated keys as arrays in order, decoding by URLSearchParams', () => {
    expect(query('a=1&b=x&b=y&b=z&c=&d=hello+world&e=%C3%A9')).toEqual({ a: '1', b: ['x', 'y', 'z'], c: '', d: 'hello world', e: 'é' });
    expect(query('')).toEqual({});
  });

  test('__proto__ is an ordinary key and never touches a prototype', () => {
    const q = query('__proto__=x&constructor=y&__proto__=z');
    expect(Object.hasOwn(q, '__proto__')).toBe(true);
    expect(q.__proto__).toEqual(['x', 'z']);
    expect(Object.getPrototypeOf(q)).toBe(Object.prototype);
    expect(q['constructor'] as unknown).toBe('y');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('coercion', () => {
  const list = compile({
    type: 'object',
    properties: {
      offset: { type: 'integer', minimum: 0 },
      ratio: { type: 'number' },
      count: { type: 'boolean' },
      q: { type: 'string' },
      ids: { type: 'array', items: { type: 'integer' } },
      tags: { type: 'array', items: { type: 'string' } },
      either: { type: ['integer', 'string'] },
      level: { enum: [1, 2, 3] },
      maybe: { type: ['integer', 'null'] },
    },
    additionalProperties: false,
  });
  const coerce = (text: string) => list.coerceQuery(query(text));

  test('integer, number and boolean properties receive parsed values', () => {
    expect(coerce('offset=10&ratio=-1.5e2&count=true&q=42')).toEqual({ offset: 10, ratio: -150, count: true, q: '42' });
    expect(coerce('count=false&maybe=7')).toEqual({ count: false, maybe: 7 });
  });

  test('only clean parses convert; the rest stays text for validation to judge', () => {
    for (const text of [' 42', '42 ', '0x10', '1_000', '', 'abc', '+1', '01', 'Infinity', 'NaN', '1.']) {
      expect({ text, got: coerce(`offset=${encodeURIComponent(text)}`).offset }).toEqual({ text, got: text });
    }
    for (const text of ['True', '1', 'yes', '']) expect(coerce(`count=${text}`).count).toBe(text);
    // Digits a double cannot hold are kept, not silently rounded.
    expect(coerce('offset=12345678901234567890').offset).toBe('12345678901234567890');
    expect(coerce('offset=1e3').offset).toBe(1000);
  });

  test('arrays: a lone value is wrapped, items are converted by their type', () => {
    expect(coerce('ids=1&ids=2&tags=a')).toEqual({ ids: [1, 2], tags: ['a'] });
    expect(coerce('ids=1&ids=x')).toEqual({ ids: [1, 'x'] });
  });

  test('a property that also allows strings is left alone; enum of numbers converts', () => {
    expect(coerce('either=5&level=2')).toEqual({ either: '5', level: 2 });
  });

  test('a repeated scalar stays an array, unknown keys stay text', () => {
    expect(coerce('offset=1&offset=2&zzz=1')).toEqual({ offset: ['1', '2'], zzz: '1' });
  });

  test('end to end: valid queries pass, bad ones report the parameter', () => {
    expect(list.check(coerce('offset=0&ratio=0.5&count=true&ids=3'))).toBe(true);
    expect(list.violations(coerce('offset=abc'))).toEqual([{ pointer: '/offset', message: 'Expected an integer' }]);
    expect(list.violations(coerce('offset=4.5'))).toEqual([{ pointer: '/offset', message: 'Expected an integer' }]);
    expect(list.violations(coerce('offset=-1'))).toEqual([{ pointer: '/offset', message: 'Expected a number >= 0' }]);
    expect(list.violations(coerce('zzz=1'))).toEqual([{ pointer: '/zzz', message: 'Unknown property' }]);
  });

  test('properties reached through $ref and allOf are planned too; the input is not mutated', () => {
    const guard = compile({ $defs: { page: { type: 'object', properties: { limit: { $ref: '#/$defs/n' } } }, n: { type: 'integer' } }, allOf: [{ $ref: '#/$defs/page' }] });
    const input = query('limit=5');
    expect(guard.coerceQuery(input)).toEqual({ limit: 5 });
    expect(input).toEqual({ limit: '5' });
  });

  test('a __proto__ query key is coerced as an own property', () => {
    const guard = compile(JSON.parse('{"type": "object", "properties": {"__proto__": {"type": "integer"}}, "required": ["__proto__"]}'));
    const coerced = guard.coerceQuery(query('__proto__=3'));
    expect(Object.hasOwn(coerced, '__proto__')).toBe(true);
    expect(guard.check(coerced)).toBe(true);
    expect(guard.check(guard.coerceQuery(query('other=1')))).toBe(false);
  });
});
