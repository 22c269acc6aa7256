// ETags of versioned resources: `"<version>"`, and If-Match checks against them.

export const etagOf = (version: number) => `"${version}"`;

/** `If-Match: "3"`, `W/"3"`, a list of them, or `*`. */
export function ifMatchAccepts(header: string, version: number): boolean {
  const wanted = etagOf(version);
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === wanted);
}
