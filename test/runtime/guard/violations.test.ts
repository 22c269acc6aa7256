// The violation report users see in a failed guard's 400: JSON pointers into the value (RFC 6901
// escaped), readable messages, the intended branch of an anyOf/oneOf, and a bounded count.
import { describe, expect, test } from 'bun:test';
import { compileGuardSchema, MAX_VIOLATIONS, type CompiledGuard } from '../../../runtime/guard/index.ts';

function compile(schema: unknown): CompiledGuard {
  const result = compileGuardSchema(schema);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.guard;
}

const order = compile({
  type: 'object',
  properties: {
    customer: { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'], additionalProperties: false },
    items: {
      type: 'array',
      minItems: 1,
      items: { type: 'object', properties: { sku: { type: 'string', pattern: '^[A-Z]{3}$', maxLength: 3 }, qty: { type: 'integer', minimum: 1 } }, required: ['sku', 'qty'] },
    },
    'a/b~c': { type: 'boolean' },
  },
  required: ['customer', 'items'],
  additionalProperties: false,
});

describe('pointers and messages', () => {
  test('a valid value has none', () => {
    expect(order.violations({ customer: { email: 'a@b.co' }, items: [{ sku: 'ABC', qty: 1 }] })).toEqual([]);
  });

  test('missing and unknown properties point at the property', () => {
    expect(order.violations({ items: [{ sku: 'ABC', qty: 1 }], extra: 1 })).toEqual([
      { pointer: '/customer', message: 'Required property is missing' },
      { pointer: '/extra', message: 'Unknown property' },
    ]);
  });

  test('nested violations point into arrays and objects', () => {
    expect(order.violations({ customer: { email: 'nope', phone: '1' }, items: [{ sku: 'abc', qty: 0 }, { qty: 1.5 }] })).toEqual([
      { pointer: '/customer/email', message: 'Expected a valid email' },
      { pointer: '/customer/phone', message: 'Unknown property' },
      { pointer: '/items/0/sku', message: 'Expected to match the pattern ^[A-Z]{3}$' },
      { pointer: '/items/0/qty', message: 'Expected a number >= 1' },
      { pointer: '/items/1/sku', message: 'Required property is missing' },
      { pointer: '/items/1/qty', message: 'Expected an integer' },
    ]);
  });

  test('keys with / and ~ are escaped', () => {
    expect(order.violations({ customer: { email: 'a@b.co' }, items: [{ sku: 'ABC', qty: 1 }], 'a/b~c': 'yes' })).toEqual([{ pointer: '/a~1b~0c', message: 'Expected a boolean' }]);
  });

  test('the root value of the wrong type', () => {
    expect(order.violations([])).toEqual([{ pointer: '', message: 'Expected an object' }]);
    expect(order.violations(null)).toEqual([{ pointer: '', message: 'Expected an object' }]);
    expect(compile({ type: ['string', 'null'] }).violations(1)).toEqual([{ pointer: '', message: 'Expected a string or null' }]);
  });

  test('lengths count characters, and say so', () => {
    const name = compile({ type: 'string', minLength: 1, maxLength: 2 });
    expect(name.violations('')).toEqual([{ pointer: '', message: 'Expected at least 1 character' }]);
    expect(name.violations('😀😀😀')).toEqual([{ pointer: '', message: 'Expected at most 2 characters' }]);
    expect(name.violations('😀😀')).toEqual([]);
  });

  test('enum, const, uniqueItems, items: false', () => {
    expect(compile({ enum: ['a', 'b'] }).violations('c')).toEqual([{ pointer: '', message: 'Expected one of: "a", "b"' }]);
    expect(compile({ const: 3 }).violations(4)).toEqual([{ pointer: '', message: 'Expected 3' }]);
    expect(compile({ uniqueItems: true }).violations([1, 2, 1])).toEqual([{ pointer: '/2', message: 'Expected unique items; this one equals item 0' }]);
    expect(compile({ prefixItems: [{}], items: false }).violations([1, 2, 3])).toEqual([{ pointer: '/1', message: 'Expected at most 1 item' }]);
  });
});

describe('anyOf and oneOf explain the intended branch', () => {
  const shape = compile({
    oneOf: [
      { type: 'object', properties: { kind: { const: 'circle' }, r: { type: 'number', exclusiveMinimum: 0 } }, required: ['kind', 'r'] },
      { type: 'object', properties: { kind: { const: 'square' }, side: { type: 'number' } }, required: ['kind', 'side'] },
    ],
  });

  test('a discriminator picks the branch', () => {
    expect(shape.violations({ kind: 'circle', r: -1 })).toEqual([{ pointer: '/r', message: 'Expected a number > 0' }]);
    expect(shape.violations({ kind: 'square' })).toEqual([{ pointer: '/side', message: 'Required property is missing' }]);
  });

  test('no branch stands out: one generic message', () => {
    expect(shape.violations({ kind: 'triangle' })).toEqual([{ pointer: '', message: 'Expected a value matching exactly one of the oneOf schemas' }]);
  });

  test('the only branch of the right type', () => {
    const v = compile({ anyOf: [{ type: 'string', maxLength: 2 }, { type: 'integer' }] });
    expect(v.violations('abc')).toEqual([{ pointer: '', message: 'Expected at most 2 characters' }]);
  });

  test('a value matching two oneOf branches', () => {
    expect(compile({ oneOf: [{ type: 'integer' }, { minimum: 0 }] }).violations(3)).toEqual([
      { pointer: '', message: 'Expected a value matching exactly one of the oneOf schemas, but it matches 2' },
    ]);
  });
});

describe('bounds', () => {
  test(`at most ${MAX_VIOLATIONS} violations`, () => {
    const list = compile({ type: 'array', items: { type: 'string' } });
    const found = list.violations(Array.from({ length: 500 }, (_, i) => i));
    expect(found).toHaveLength(MAX_VIOLATIONS);
    expect(found[0]).toEqual({ pointer: '/0', message: 'Expected a string' });
  });

  test('a value nested deeper than the stack fails closed instead of throwing', () => {
    const tree = compile({ type: ['array', 'integer'], items: { $ref: '#' } });
    const deep = JSON.parse('['.repeat(100_000) + '1' + ']'.repeat(100_000));
    expect(tree.check([[[1]]])).toBe(true);
    expect(tree.check(deep)).toBe(false);
    expect(tree.violations(deep)).toEqual([{ pointer: '', message: 'The value is nested too deeply to validate' }]);
  });
});
