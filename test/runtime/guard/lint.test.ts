// Lint advice the control plane shows as contract-validation warnings (issue 4 item 4).
import { describe, expect, test } from 'bun:test';
import { lintGuardSchema } from '../../../runtime/guard/index.ts';

const codes = (schema: unknown) => lintGuardSchema(schema).map((w) => `${w.code} ${w.pointer}`);

describe('PATTERN_WITHOUT_MAX_LENGTH', () => {
  test('a pattern without maxLength beside it', () => {
    expect(codes({ type: 'string', pattern: '^[a-z]+$' })).toEqual(['PATTERN_WITHOUT_MAX_LENGTH ']);
    expect(lintGuardSchema({ pattern: 'x' })[0]!.message).toMatch(/maxLength/);
  });
  test('bounded patterns pass', () => {
    expect(codes({ type: 'string', pattern: '^[a-z]+$', maxLength: 20 })).toEqual([]);
  });
  test('found anywhere: properties, items, anyOf, $defs', () => {
    const schema = {
      $defs: { code: { pattern: 'a' } },
      type: 'array',
      items: { anyOf: [{ type: 'string', pattern: 'b' }, { type: 'object', properties: { 'x/y': { pattern: 'c' } }, additionalProperties: false }] },
    };
    expect(codes(schema).sort()).toEqual([
      'PATTERN_WITHOUT_MAX_LENGTH /$defs/code',
      'PATTERN_WITHOUT_MAX_LENGTH /items/anyOf/0',
      'PATTERN_WITHOUT_MAX_LENGTH /items/anyOf/1/properties/x~1y',
    ]);
  });
});

describe('ADDITIONAL_PROPERTIES_ALLOWED', () => {
  test('an object schema without additionalProperties: false', () => {
    expect(codes({ type: 'object', properties: { a: { type: 'object' } }, additionalProperties: false })).toEqual(['ADDITIONAL_PROPERTIES_ALLOWED /properties/a']);
    expect(codes({ properties: { a: {} } })).toEqual(['ADDITIONAL_PROPERTIES_ALLOWED ']);
    expect(codes({ type: ['object', 'null'], additionalProperties: true })).toEqual(['ADDITIONAL_PROPERTIES_ALLOWED ']);
  });
  test('closed objects and deliberate additionalProperties schemas pass', () => {
    expect(codes({ type: 'object', additionalProperties: false })).toEqual([]);
    expect(codes({ type: 'object', additionalProperties: { type: 'string' } })).toEqual([]);
    expect(codes({ type: 'string' })).toEqual([]);
  });
});

test('lint reads schemas that do not compile, and ignores what is not a schema', () => {
  expect(codes({ if: { pattern: 'x' } })).toEqual(['PATTERN_WITHOUT_MAX_LENGTH /if']);
  expect(lintGuardSchema('nope')).toEqual([]);
  expect(lintGuardSchema(null)).toEqual([]);
  expect(lintGuardSchema(true)).toEqual([]);
});
