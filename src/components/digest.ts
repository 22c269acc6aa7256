// Revision digests (DESIGN §7): `sha256:<hex>` of canonical JSON (src/core/lib/canonical-json.ts) of
// the kind and the content fields; content has its defaults applied before it gets here, so equal
// meaning gives an equal digest.
import { createHash } from 'node:crypto';
import type { ComponentContent } from './record.ts';
import { canonicalJson } from '../core/lib/index.ts';

export function contentDigest(content: ComponentContent): string {
  return `sha256:${createHash('sha256').update(canonicalJson(content), 'utf8').digest('hex')}`;
}
