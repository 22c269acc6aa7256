// ETags of versioned resources: `"<version>"`, and If-Match checks against them.

export const etagOf = (version: number) => `"${version}"`;

/**
 * `If-Match: "3"`, a list of tags, or `*`. If-Match compares strongly (RFC 9110 §13.1.1): a weak
 * tag (`W/"3"`) never matches. A bare version (`If-Match: 3`, not an entity tag by the RFC's
 * grammar) is read as its quoted tag: clients that send the version they read mean exactly that,
 * and refusing it would answer 412 to a request whose version is current.
 */
export function ifMatchAccepts(header: string, version: number): boolean {
  const wanted = etagOf(version);
  const bare = String(version);
  return header
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === '*' || tag === wanted || tag === bare);
}
