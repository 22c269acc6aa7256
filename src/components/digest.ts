// Revision digests (DESIGN §7): `sha256:<hex>` of canonical JSON of the kind and the content fields.
// Canonical = object keys sorted at every level, no whitespace, undefined members dropped; content
// has its defaults applied before it gets here, so equal meaning gives an equal digest.
import { createHash } from 'node:crypto';
import type { ComponentContent } from './record.ts';

/** JSON with keys sorted recursively. Arrays keep their order: element order is meaning. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

export function contentDigest(content: ComponentContent): string {
  return `sha256:${createHash('sha256').update(canonicalJson(content), 'utf8').digest('hex')}`;
}
