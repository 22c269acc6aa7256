// ETags of versioned resources: `"<version>"`, and If-Match checks against them.

export const etagOf = (version: number) => `"${version}"`;

/**
 * `If-Match: "3"`, a list of tags, or `*`. If-Match compares strongly (RFC 9110 §13.1.1): a weak
 * tag (`W/"3"`) never matches.
 */
export function ifMatchAccepts(header: string, version: number): boolean {
  const wanted = etagOf(version);
  return header
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === '*' || tag === wanted);
}
