// What a guard refuses at save time, with a pointer into the schema: unsupported and unknown
// keywords, bad keyword values, references outside the schema or in loops, unsafe patterns, limits.
import { describe, expect, test } from 'bun:test';
import { compileGuardSchema, GUARD_LIMITS, MAX_PATTERN_LENGTH, MAX_RE2_PROGRAM, GuardCache, type SchemaError } from '../../../runtime/guard/index.ts';

function errors(schema: unknown): SchemaError[] {
  const result = compileGuardSchema(schema);
  if (result.ok) throw new Error(`compiled unexpectedly: ${JSON.stringify(schema)}`);
  return result.errors;
}

const compiles = (schema: unknown) => compileGuardSchema(schema).ok;

describe('unsupported keywords name the keyword and its place', () => {
  const cases: [string, unknown, string, RegExp][] = [
    ['if', { type: 'object', properties: { a: { if: { type: 'string' } } } }, '/properties/a/if', /if\/then\/else/],
    ['then', { then: {} }, '/then', /if\/then\/else/],
    ['dependentSchemas', { dependentSchemas: { a: {} } }, '/dependentSchemas', /dependentSchemas/],
    ['dependentRequired', { dependentRequired: { a: ['b'] } }, '/dependentRequired', /dependentRequired/],
    ['unevaluatedProperties', { allOf: [{ unevaluatedProperties: false }] }, '/allOf/0/unevaluatedProperties', /additionalProperties/],
    ['unevaluatedItems', { unevaluatedItems: false }, '/unevaluatedItems', /unevaluatedItems/],
    ['$dynamicRef', { items: { $dynamicRef: '#x' } }, '/items/$dynamicRef', /Dynamic/],
    ['$anchor', { $anchor: 'x' }, '/$anchor', /anchored/],
    ['nullable', { type: 'string', nullable: true }, '/nullable', /type array/],
    ['additionalItems', { additionalItems: false }, '/additionalItems', /prefixItems/],
  ];
  for (const [name, schema, pointer, message] of cases) {
    test(name, () => {
      const found = errors(schema);
      expect(found).toHaveLength(1);
      expect(found[0]!.pointer).toBe(pointer);
      expect(found[0]!.message).toMatch(message);
    });
  }

  test('an unknown keyword (a typo) is refused, vendor extensions are not', () => {
    expect(errors({ type: 'object', requried: ['a'] })).toEqual([{ pointer: '/requried', message: expect.stringContaining('Unknown keyword "requried"') }]);
    expect(compiles({ type: 'object', 'x-internal': true })).toBe(true);
  });

  test('every problem is listed at once', () => {
    const found = errors({ type: 'strin', properties: { a: { minLength: -1 }, b: { pattern: '(' } }, if: {} });
    expect(found.map((e) => e.pointer).sort()).toEqual(['/if', '/properties/a/minLength', '/properties/b/pattern', '/type']);
  });
});

describe('keyword values', () => {
  const cases: [unknown, string, RegExp][] = [
    [{ type: 'strin' }, '/type', /type is one of/],
    [{ type: [] }, '/type', /non-empty/],
    [{ type: ['string', 'string'] }, '/type', /twice/],
    [{ minLength: -1 }, '/minLength', /non-negative integer/],
    [{ maxItems: 1.5 }, '/maxItems', /non-negative integer/],
    [{ minimum: '1' }, '/minimum', /number/],
    [{ exclusiveMinimum: true }, '/exclusiveMinimum', /number/],
    [{ multipleOf: 0 }, '/multipleOf', /greater than 0/],
    [{ pattern: '(' }, '/pattern', /Invalid regular expression/],
    [{ pattern: '\\-' }, '/pattern', /Invalid regular expression/], // an identity escape is an error in Unicode mode
    [{ format: 'bogus' }, '/format', /supported: date-time, date, time, email, uuid, uri, ipv4, ipv6, hostname/],
    [{ required: 'a' }, '/required', /array of property names/],
    [{ required: ['a', 'a'] }, '/required', /twice/],
    [{ items: [{}] }, '/items', /prefixItems/],
    [{ prefixItems: [] }, '/prefixItems', /non-empty/],
    [{ enum: [] }, '/enum', /non-empty/],
    [{ anyOf: [] }, '/anyOf', /non-empty array of schemas/],
    [{ properties: [] }, '/properties', /object of schemas/],
    [{ properties: { a: 'string' } }, '/properties/a', /object or a boolean/],
    [{ patternProperties: { '[': {} } }, '/patternProperties/[', /Invalid regular expression/],
    [{ uniqueItems: 'yes' }, '/uniqueItems', /boolean/],
    [{ $schema: 'http://json-schema.org/draft-04/schema#' }, '/$schema', /2020-12/],
    [{ properties: { a: { $schema: 'https://json-schema.org/draft/2020-12/schema' } } }, '/properties/a/$schema', /only at the root/],
    [{ items: { $id: 'x' } }, '/items/$id', /only at the root/],
    [{ items: { $defs: {} } }, '/items/$defs', /only at the root/],
  ];
  for (const [schema, pointer, message] of cases) {
    test(`${JSON.stringify(schema)} → ${pointer}`, () => {
      const found = errors(schema);
      expect(found[0]!.pointer).toBe(pointer);
      expect(found[0]!.message).toMatch(message);
    });
  }

  test('the schema itself must be a schema', () => {
    for (const schema of ['string', 42, null, [], undefined]) expect(errors(schema)[0]!.pointer).toBe('');
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    expect(errors(cyclic)[0]!.message).toMatch(/not JSON/);
  });
});

describe('$ref', () => {
  test('only references inside the schema', () => {
    expect(errors({ $ref: 'https://example.com/schema.json' })[0]).toEqual({ pointer: '/$ref', message: expect.stringContaining('"#/$defs/<name>"') });
    expect(errors({ properties: { a: {}, b: { $ref: '#/properties/a' } } })[0]!.pointer).toBe('/properties/b/$ref');
    expect(errors({ $defs: { a: {} }, items: { $ref: '#/$defs/b' } })[0]).toEqual({ pointer: '/items/$ref', message: 'No definition #/$defs/b in this schema\'s $defs' });
    expect(errors({ $defs: { a: { $defs: {} } } })[0]!.pointer).toBe('/$defs/a/$defs');
  });

  test('escaped and percent-encoded definition names resolve', () => {
    const schema = { $defs: { 'a/b': { type: 'string' }, 'c d': { type: 'integer' } }, prefixItems: [{ $ref: '#/$defs/a~1b' }, { $ref: '#/$defs/c%20d' }] };
    const result = compileGuardSchema(schema);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.guard.check(['x', 1])).toBe(true);
    expect(result.guard.check([1, 'x'])).toBe(false);
  });

  test('a loop that never descends into the value is refused; recursion through a property is fine', () => {
    expect(errors({ $defs: { a: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' })[0]!.message).toMatch(/never terminates/);
    expect(errors({ $defs: { a: { allOf: [{ $ref: '#/$defs/b' }] }, b: { anyOf: [{ not: { $ref: '#/$defs/a' } }] } } })[0]!.message).toMatch(/never terminates/);
    expect(errors({ $ref: '#' })[0]!.message).toMatch(/never terminates/);
    expect(compiles({ type: 'object', properties: { next: { $ref: '#' } } })).toBe(true);
  });
});

describe('patterns: linear-time matching where backtracking could explode; backreferences and lookaround there refused', () => {
  // Each of these takes JavaScript's engine seconds to centuries on the hostile input beside it.
  const hostile: [string, string][] = [
    ['^(a+)+$', `${'a'.repeat(40)}!`],
    ['(a*)*b', 'a'.repeat(40)],
    ['^(\\w+\\s?)*$', `${'ab '.repeat(30)}!`],
    ['(x+x+)+y', 'x'.repeat(40)],
    ['^(.*a){12}$', `${'a'.repeat(60)}b`],
    ['^(a|a?)+$', `${'a'.repeat(40)}!`],
    ['a.*.*.*.*.*.*.*.*b', 'a'.repeat(3000)],
    ['[a-z]+\\d', 'a'.repeat(200_000)],
    ['(\\w|\\d)*!', 'a1'.repeat(30)],
    ['^(a|aa){0,40}b$', 'a'.repeat(60)],
  ];
  for (const [pattern, input] of hostile) {
    test(`${pattern} against ${input.length} characters answers (false) at once`, () => {
      const result = compileGuardSchema({ type: 'string', pattern });
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.guard.check(input)).toBe(false);
    });
  }
  test('they still match what they should, in either engine', () => {
    const cases: [string, string, boolean][] = [
      ['^(a+)+$', 'aaaa', true], ['^([a-z]+\\.)*$', 'ab.cd.', true], ['^([a-z]+\\.)*$', 'ab.cd', false], ['[a-z]+\\d', 'xx abc7', true],
      ['^\\p{L}+$', 'Ωmega', true], ['^\\u{1F600}+$', '😀😀', true], ['^\\u0041+$', 'AA', true], ['^\\u0041+$', 'B', false], ['^[\\u0041-\\u0043]*$', 'ABC', true],
      ['^\\\\u0041$', '\\u0041', true],
    ];
    for (const [pattern, value, expected] of cases) {
      const result = compileGuardSchema({ type: 'string', pattern });
      if (!result.ok) throw new Error(`${pattern}: ${JSON.stringify(result)}`);
      expect({ pattern, value, match: result.guard.check(value) }).toEqual({ pattern, value, match: expected });
    }
  });
  test('lookaround where RE2 must match is refused, with the reason', () => {
    expect(errors({ type: 'string', pattern: '^(?=.*\\d).+$' })[0]!.message).toMatch(/matched by RE2 in linear time, which does not support it/);
    // Without an unbounded quantifier JavaScript's engine matches it: lookaround is fine there.
    expect(compiles({ type: 'string', pattern: '^(?=\\d)\\w{1,8}$' })).toBe(true);
  });
  test('backreferences', () => {
    expect(errors({ pattern: '(a)\\1' })[0]!.message).toMatch(/Backreferences/);
    expect(errors({ pattern: '(?<x>a)\\k<x>' })[0]!.message).toMatch(/Backreferences/);
  });
  test('ordinary patterns pass, including bounded repetition of a group', () => {
    for (const pattern of ['^[A-Z]{3}-\\d{4}$', '^(\\d{3}-){2}\\d{4}$', '^[a-z]+(-[a-z]+)?$', '^\\p{L}+$', '^(?:[a-z]{2})+$', '^[(+*]+$', '^a\\(b+\\)+$', '^\\u{1F600}+$']) {
      expect({ pattern, ok: compiles({ type: 'string', pattern }) }).toEqual({ pattern, ok: true });
    }
  });
  test('patternProperties keys go through the same check', () => {
    expect(errors({ patternProperties: { '^(?=a)a+$': {} } })[0]!.pointer).toBe('/patternProperties/^(?=a)a+$');
    const result = compileGuardSchema({ type: 'object', patternProperties: { '^(a+)+$': { type: 'integer' } } });
    expect(result.ok).toBe(true);
    if (result.ok) expect([result.guard.check({ aaa: 1 }), result.guard.check({ aaa: 'x' }), result.guard.check({ [`${'a'.repeat(40)}!`]: 'x' })]).toEqual([true, false, true]);
  });
  test('RE2 expands counted repetition: a pattern too large for it, alone or with the guard\'s others, is refused before it is compiled', () => {
    // ~16,000 instructions, ~5 MB compiled (38 of these in one pattern took 55 MB).
    const huge = errors({ type: 'string', pattern: '(?:ab|cd|ef|gh|ij){1,1000}x+' });
    expect(huge).toEqual([{ pointer: '/pattern', message: expect.stringContaining(`too large for it (about 16001 instructions, at most ${MAX_RE2_PROGRAM})`) }]);
    // Each within the limit (~3,600), too many together: those beyond the budget are named.
    const medium = (n: number) => `^(?:x${n}|y){1,600}z+$`;
    const properties = Object.fromEntries(Array.from({ length: 6 }, (_, n) => [`p${n}`, { type: 'string', pattern: medium(n) }]));
    expect(compiles({ type: 'string', pattern: medium(0) })).toBe(true);
    expect(compiles({ type: 'object', properties: { p0: properties.p0, p1: properties.p1 } })).toBe(true);
    const together = errors({ type: 'object', properties });
    expect(together).toHaveLength(4);
    for (const e of together) expect(e).toEqual({ pointer: expect.stringMatching(/^\/properties\/p\d\/pattern$/), message: expect.stringContaining(`at most ${GUARD_LIMITS.maxRe2Program} in one guard`) });
    // The same pattern used again counts once; bounded patterns (JavaScript's engine) count for nothing.
    const same = Object.fromEntries(Array.from({ length: 6 }, (_, n) => [`p${n}`, { type: 'string', pattern: medium(0) }]));
    expect(compiles({ type: 'object', properties: same })).toBe(true);
    expect(compiles({ type: 'object', properties: { a: { type: 'string', pattern: '^(?:-\\d{3}){1,1000}$' }, b: { type: 'string', pattern: '^\\w{1,1000}$' }, c: properties.p0, d: properties.p1 } })).toBe(true);
  });
  test('a compiled pattern is shared by every guard that uses it, and matches the same in each', () => {
    const first = compileGuardSchema({ type: 'string', pattern: '^[a-z]+-\\d+$' });
    const second = compileGuardSchema({ type: 'object', properties: { id: { type: 'string', pattern: '^[a-z]+-\\d+$' } } });
    expect(first.ok && second.ok).toBe(true);
    if (first.ok && second.ok) {
      expect([first.guard.check('ab-12'), first.guard.check('ab-x')]).toEqual([true, false]);
      expect([second.guard.check({ id: 'ab-12' }), second.guard.check({ id: 'AB-12' })]).toEqual([true, false]);
    }
  });
  test('a pattern cannot inject code into the compiled check', () => {
    const result = compileGuardSchema({ type: 'string', pattern: "a/;globalThis.__guardPwned=1;/'\\u0027" });
    expect(result.ok).toBe(true);
    if (result.ok) result.guard.check('abc');
    expect((globalThis as Record<string, unknown>).__guardPwned).toBeUndefined();
  });
});

describe('limits', () => {
  test(`nesting deeper than ${GUARD_LIMITS.maxDepth} levels`, () => {
    let schema: unknown = { type: 'string' };
    for (let i = 0; i < GUARD_LIMITS.maxDepth; i++) schema = { items: schema };
    expect(compiles(schema)).toBe(true);
    const found = errors({ items: schema });
    expect(found[0]!.message).toMatch(/nest at most 32/);
    expect(found[0]!.pointer).toBe('/items'.repeat(GUARD_LIMITS.maxDepth + 1));
  });

  test(`more than ${GUARD_LIMITS.maxSubschemas} subschemas`, () => {
    const properties = Object.fromEntries(Array.from({ length: GUARD_LIMITS.maxSubschemas }, (_, i) => [`p${i}`, { type: 'integer' }]));
    expect(errors({ type: 'object', properties })[0]!.message).toMatch(/at most 1000 subschemas/);
    delete properties.p0;
    expect(compiles({ type: 'object', properties })).toBe(true);
  });

  test(`schemas over ${GUARD_LIMITS.maxSchemaBytes} bytes of JSON`, () => {
    expect(errors({ description: 'x'.repeat(GUARD_LIMITS.maxSchemaBytes) })[0]!.message).toMatch(/larger than 65536 bytes/);
  });

  test('enum size, pattern length, and the error count are bounded', () => {
    expect(errors({ enum: Array.from({ length: GUARD_LIMITS.maxEnumValues + 1 }, (_, i) => i) })[0]!.message).toMatch(/at most 1000 values/);
    expect(errors({ pattern: 'a'.repeat(MAX_PATTERN_LENGTH + 1) })[0]!.message).toMatch(/longer than 1000/);
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${i}`, { minLength: -1 }]));
    expect(errors({ properties: many })).toHaveLength(GUARD_LIMITS.maxErrors);
  });
});

test('GuardCache reuses a compiled guard for the same schema text; a build keeps only what it or the one before used', () => {
  const cache = new GuardCache();
  const a = cache.compile({ type: 'string' });
  expect(cache.compile({ type: 'string' })).toBe(a);
  const b = cache.compile({ type: 'integer' });
  cache.nextGeneration();
  // The next build reuses both, and uses only the first.
  expect(cache.compile({ type: 'string' })).toBe(a);
  cache.nextGeneration();
  expect(cache.size).toBe(1);
  expect(cache.compile({ type: 'string' })).toBe(a);
  expect(cache.compile({ type: 'integer' })).not.toBe(b);
  expect(cache.compile({ if: {} }).ok).toBe(false);
});

describe('recursion through anyOf/oneOf is checked in time polynomial in the depth', () => {
  // Two branches descend into the same child: without remembering answers, 2^depth walks.
  const schema = {
    anyOf: [
      { type: 'object', properties: { n: { $ref: '#' } }, required: ['n'] },
      { type: 'object', properties: { n: { $ref: '#' } }, required: ['n'], minProperties: 1 },
      { type: 'integer' },
    ],
  };
  const nest = (depth: number, leaf: unknown): unknown => {
    let value = leaf;
    for (let i = 0; i < depth; i++) value = { n: value };
    return value;
  };
  for (const via of ['anyOf', 'oneOf'] as const) {
    test(`${via}: a value 60 deep is judged, and its violations listed, at once`, () => {
      const result = compileGuardSchema(via === 'anyOf' ? schema : { oneOf: [schema.anyOf[0], { ...schema.anyOf[1], minProperties: 2 }, schema.anyOf[2]] });
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.guard.check(nest(60, 7))).toBe(true);
      expect(result.guard.check(nest(60, 'x'))).toBe(false);
      expect(result.guard.violations(nest(60, 'x')).length).toBeGreaterThan(0);
    });
  }
});
