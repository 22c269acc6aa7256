// Revision digests: sha256 of canonical JSON, stable under key order and defaults.
import { describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { contentDigest } from '../../src/components/digest.ts';
import { canonicalJson } from '../../src/core/lib/canonical-json.ts';
import { contentFromCreate, contentFromUpdate } from '../../src/components/content.ts';

describe('canonical JSON', () => {
  test('sorts keys at every level, keeps array order, drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null }, u: undefined })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });
});

describe('content digests', () => {
  test('sha256:<hex> of the canonical JSON of kind and content', () => {
    const content = { kind: 'json-validator' as const, schema: { type: 'object' } };
    const hex = createHash('sha256').update('{"kind":"json-validator","schema":{"type":"object"}}').digest('hex');
    expect(contentDigest(content)).toBe(`sha256:${hex}`);
  });

  test('key order does not change the digest; content and kind do', () => {
    const a = contentDigest({ kind: 'json-validator', schema: { type: 'object', properties: { x: { type: 'string', maxLength: 3 } } } });
    const b = contentDigest({ schema: { properties: { x: { maxLength: 3, type: 'string' } }, type: 'object' }, kind: 'json-validator' });
    expect(a).toBe(b);
    expect(contentDigest({ kind: 'json-validator', schema: { type: 'array' } })).not.toBe(a);
  });

  test('defaults are applied first: visible omitted equals visible true', () => {
    const omitted = contentFromCreate({ name: 'n', kind: 'lowcode', elements: [{ name: 'a', code: 'return 1' }] });
    const explicit = contentFromCreate({ name: 'n', kind: 'lowcode', elements: [{ code: 'return 1', visible: true, name: 'a' }] });
    expect(contentDigest(omitted)).toBe(contentDigest(explicit));
    const hidden = contentFromCreate({ name: 'n', kind: 'lowcode', elements: [{ name: 'a', code: 'return 1', visible: false }] });
    expect(contentDigest(hidden)).not.toBe(contentDigest(omitted));
  });

  test('element order is meaning', () => {
    const one = contentFromCreate({ name: 'n', kind: 'lowcode', elements: [{ name: 'a', code: '' }, { name: 'b', code: '' }] });
    const two = contentFromCreate({ name: 'n', kind: 'lowcode', elements: [{ name: 'b', code: '' }, { name: 'a', code: '' }] });
    expect(contentDigest(one)).not.toBe(contentDigest(two));
  });

  test('node: undeclared results differ from declaring none; result visibility defaults to true', () => {
    const undeclared = contentFromCreate({ name: 'n', kind: 'node', source: 'export default async () => 1' });
    const none = contentFromCreate({ name: 'n', kind: 'node', source: 'export default async () => 1', results: [] });
    expect(contentDigest(undeclared)).not.toBe(contentDigest(none));
    const a = contentFromCreate({ name: 'n', kind: 'node', source: 's', results: [{ name: 'default' }] });
    const b = contentFromCreate({ name: 'n', kind: 'node', source: 's', results: [{ name: 'default', visible: true }] });
    expect(contentDigest(a)).toBe(contentDigest(b));
  });

  test('a PATCH of results alone keeps the source; results null withdraws the declaration', () => {
    const latest = contentFromCreate({ name: 'n', kind: 'node', source: 's', results: [{ name: 'x' }] });
    expect(contentFromUpdate('node', latest, { results: [{ name: 'y' }] })).toEqual({ kind: 'node', source: 's', results: [{ name: 'y', visible: true }] });
    expect(contentFromUpdate('node', latest, { results: null })).toEqual({ kind: 'node', source: 's' });
    expect(contentFromUpdate('node', latest, { source: 't' })).toEqual({ kind: 'node', source: 't', results: [{ name: 'x', visible: true }] });
  });
});
