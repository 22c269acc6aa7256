// UUIDs in request bodies are case-insensitive: validBody lower-cases every string its schema
// declares as a uuid, so SQLite (text comparison) and Postgres (uuid type) see the same id.
import { describe, expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { validBody } from '../../src/http/body.ts';
import { compile } from '../../src/http/validate.ts';

const Uuid = Type.String({ format: 'uuid' });
const schema = compile(Type.Object({
  id: Uuid,
  ids: Type.Array(Uuid),
  name: Type.String(),
  either: Type.Union([Type.Object({ kind: Type.Literal('a'), ref: Uuid }), Type.Object({ kind: Type.Literal('b'), ref: Type.String() })]),
  free: Type.Record(Type.String(), Type.Unknown()),
}));

const ID = '0F8E6C1A-3B2D-4E5F-8A9B-0C1D2E3F4A5B';

describe('UUIDs in bodies', () => {
  test('every string declared as a uuid is lower-cased; nothing else changes', () => {
    const body = validBody({ id: ID, ids: [ID, ID.toLowerCase()], name: ID, either: { kind: 'a', ref: ID }, free: { x: ID } }, schema);
    expect(body).toEqual({ id: ID.toLowerCase(), ids: [ID.toLowerCase(), ID.toLowerCase()], name: ID, either: { kind: 'a', ref: ID.toLowerCase() }, free: { x: ID } });
  });

  test('a union branch that takes any string keeps a non-UUID as sent', () => {
    expect(validBody({ id: ID, ids: [], name: 'n', either: { kind: 'b', ref: 'Not-A-Uuid' }, free: {} }, schema).either).toEqual({ kind: 'b', ref: 'Not-A-Uuid' });
  });
});
