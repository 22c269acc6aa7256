// validBody beyond TypeBox's own checks: UUIDs are case-insensitive (every string the schema
// declares as a uuid is lower-cased, so SQLite's text comparison and Postgres' uuid type see the
// same id), and string bounds count characters (code points) as JSON Schema does, not UTF-16 units.
import { describe, expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { validBody } from '../../src/core/http/body.ts';
import { compile } from '../../src/core/http/validate.ts';

const Uuid = Type.String({ format: 'uuid' });
const schema = compile(Type.Object({
  id: Uuid,
  ids: Type.Array(Uuid),
  name: Type.String(),
  either: Type.Union([Type.Object({ kind: Type.Literal('a'), ref: Uuid }), Type.Object({ kind: Type.Literal('b'), ref: Type.String() })]),
  free: Type.Record(Type.String(), Type.Unknown()),
  nullable: Type.Optional(Type.Union([Uuid, Type.Null()])),
}));

const ID = '0F8E6C1A-3B2D-4E5F-8A9B-0C1D2E3F4A5B';

describe('UUIDs in bodies', () => {
  test('every string declared as a uuid is lower-cased; nothing else changes', () => {
    const body = validBody({ id: ID, ids: [ID, ID.toLowerCase()], name: ID, either: { kind: 'a', ref: ID }, free: { x: ID } }, schema);
    expect(body).toEqual({ id: ID.toLowerCase(), ids: [ID.toLowerCase(), ID.toLowerCase()], name: ID, either: { kind: 'a', ref: ID.toLowerCase() }, free: { x: ID } });
  });

  test('a nullable uuid (a union with null) is lower-cased too', () => {
    expect(validBody({ id: ID, ids: [], name: 'n', either: { kind: 'a', ref: ID }, free: {}, nullable: ID }, schema).nullable).toBe(ID.toLowerCase());
  });

  test('a union branch that takes any string keeps a non-UUID as sent', () => {
    expect(validBody({ id: ID, ids: [], name: 'n', either: { kind: 'b', ref: 'Not-A-Uuid' }, free: {} }, schema).either).toEqual({ kind: 'b', ref: 'Not-A-Uuid' });
  });
});

describe('string bounds in characters', () => {
  const bounded = compile(Type.Object({ plain: Type.Optional(Type.String({ maxLength: 3 })), nullable: Type.Optional(Type.Union([Type.String({ maxLength: 3 }), Type.Null()])) }));
  const emoji = '\u{1F600}'; // one character, two UTF-16 units

  test('three characters of two UTF-16 units each are within maxLength 3; four are not', () => {
    expect(bounded.check({ plain: emoji.repeat(3), nullable: emoji.repeat(3) })).toBe(true);
    expect(validBody({ plain: emoji.repeat(3), nullable: emoji.repeat(3) }, bounded)).toEqual({ plain: emoji.repeat(3), nullable: emoji.repeat(3) });
    expect(bounded.violations({ plain: emoji.repeat(4) }).map((v) => v.pointer)).toEqual(['/plain']);
    expect(bounded.violations({ nullable: emoji.repeat(4) }).map((v) => v.pointer)).toEqual(['/nullable']);
    expect(bounded.check({ plain: 'abcd' })).toBe(false);
  });
});
