// Hostile names must neither break compilation (the checks are generated code) nor bend
// validation: prototype names (`__proto__`, `constructor`, `toString`), quotes, backslashes,
// line separators, template syntax and unicode, in properties, required, $defs, enum and const.
import { describe, expect, test } from 'bun:test';
import { compileGuardSchema, type CompiledGuard } from '../../../runtime/guard/index.ts';

function compile(schema: unknown): CompiledGuard {
  const result = compileGuardSchema(schema);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.guard;
}

const HOSTILE = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  "a'b",
  'a"b',
  'a\\b',
  "\\'); globalThis.__pwned = 1; ('",
  '${globalThis.__pwned = 1}',
  '`',
  'line\u2028sep\u2029',
  'new\nline',
  '\u0000',
  '',
  '0',
  'a.b',
  'a/b',
  '~',
  'ключ',
  '😀',
] as const;

const pwned = () => (globalThis as Record<string, unknown>).__pwned;

describe('hostile property names', () => {
  // Parsed from JSON, as a stored definition is: `__proto__` is then an own key, not the prototype.
  const schema = JSON.parse(
    JSON.stringify({
      type: 'object',
      properties: Object.fromEntries(HOSTILE.map((k, i) => [k, { type: 'integer', minimum: i }])),
      required: [...HOSTILE],
      additionalProperties: false,
    }),
  );
  const guard = compile(schema);
  const valid = () => JSON.parse(JSON.stringify(Object.fromEntries(HOSTILE.map((k, i) => [k, i]))));

  test('compiles, and the generated code ran nothing', () => {
    expect(guard.check(valid())).toBe(true);
    expect(pwned()).toBeUndefined();
  });

  for (const [i, key] of HOSTILE.entries()) {
    test(`${JSON.stringify(key)}: missing, wrong, and valid`, () => {
      const missing = valid();
      delete missing[key];
      expect(Object.hasOwn(missing, key)).toBe(false);
      expect(guard.check(missing)).toBe(false);
      expect(guard.violations(missing)).toContainEqual({ pointer: '/' + key.replace(/~/g, '~0').replace(/\//g, '~1'), message: 'Required property is missing' });

      const wrong = valid();
      wrong[key] = i - 1; // each property's minimum is its index
      expect(guard.check(wrong)).toBe(false);
      expect(guard.violations(wrong)).toEqual([{ pointer: '/' + key.replace(/~/g, '~0').replace(/\//g, '~1'), message: `Expected a number >= ${i}` }]);
    });
  }

  test('optional prototype-named properties: an object without them is valid, inherited members do not count', () => {
    const optional = compile(JSON.parse('{"type": "object", "properties": {"constructor": {"type": "string"}, "toString": {"type": "string"}, "__proto__": {"type": "string"}}}'));
    expect(optional.check({})).toBe(true);
    expect(optional.check(JSON.parse('{"constructor": "x", "toString": "y", "__proto__": "z"}'))).toBe(true);
    expect(optional.check(JSON.parse('{"__proto__": 1}'))).toBe(false);
    expect(optional.check({ constructor: 1 })).toBe(false);
    const required = compile({ type: 'object', properties: { constructor: {} }, required: ['constructor', 'toString'] });
    expect(required.check({})).toBe(false);
    expect(required.violations({})).toEqual([
      { pointer: '/constructor', message: 'Required property is missing' },
      { pointer: '/toString', message: 'Required property is missing' },
    ]);
  });

  test('additionalProperties: false still refuses a prototype name that is not declared', () => {
    const closed = compile({ type: 'object', properties: { a: {} }, additionalProperties: false });
    expect(closed.check(JSON.parse('{"__proto__": {}}'))).toBe(false);
    expect(closed.check({ constructor: 1 })).toBe(false);
  });

  test('validation never touches Object.prototype', () => {
    guard.check(JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 1}}}'));
    guard.violations(JSON.parse('{"__proto__": {"polluted": 1}}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('hostile names elsewhere', () => {
  test('$defs names are never put into generated code', () => {
    const name = "'); globalThis.__pwned = 1; ('";
    const schema = JSON.parse(JSON.stringify({ $defs: { [name]: { type: 'string' } }, prefixItems: [{ $ref: `#/$defs/${encodeURIComponent(name)}` }, { $ref: '#/$defs/__proto__' }] }));
    Object.defineProperty(schema.$defs, '__proto__', { value: { type: 'integer' }, enumerable: true });
    const guard = compile(schema);
    expect(guard.check(['x', 1])).toBe(true);
    expect(guard.check([1, 'x'])).toBe(false);
    expect(pwned()).toBeUndefined();
  });

  test('enum and const strings with quotes and backslashes', () => {
    const values = ["'", '"', '\\', "\\'", '${x}', '\u2028', "'); globalThis.__pwned = 1; ('"];
    const e = compile({ enum: values });
    for (const v of values) expect(e.check(v)).toBe(true);
    expect(e.check('x')).toBe(false);
    for (const v of values) expect(compile({ const: v }).check(v)).toBe(true);
    expect(pwned()).toBeUndefined();
  });

  test('values with prototype names against enum and const of objects (Ajv throws on these)', () => {
    const guard = compile({ enum: [{ a: 1 }, [1]] });
    expect(guard.check(JSON.parse('{"toString": 0}'))).toBe(false);
    expect(guard.check(JSON.parse('{"valueOf": 0, "a": 1}'))).toBe(false);
    expect(compile({ const: JSON.parse('{"toString": 0}') }).check(JSON.parse('{"toString": 0}'))).toBe(true);
    expect(compile({ uniqueItems: true }).check(JSON.parse('[{"toString": 0}, {"toString": 0}]'))).toBe(false);
  });

  test('patternProperties and propertyNames see prototype names as ordinary keys', () => {
    const guard = compile({ type: 'object', patternProperties: { '^_': { type: 'string' } }, propertyNames: { maxLength: 9 }, additionalProperties: false });
    expect(guard.check(JSON.parse('{"__proto__": "x"}'))).toBe(true);
    expect(guard.check(JSON.parse('{"__proto__": 1}'))).toBe(false);
    expect(guard.check({ constructor: 'x' })).toBe(false);
  });
});
