// ETags of versioned resources: `"<version>"`, and If-Match checks against them.
import { ProblemError } from './problem.ts';

export const etagOf = (version: number) => `"${version}"`;

/**
 * `If-Match: "3"`, a list of tags, or `*`. If-Match compares strongly (RFC 9110 §13.1.1): a weak
 * tag (`W/"3"`) never matches. A bare version (`If-Match: 3`, not an entity tag by the RFC's
 * grammar) is read as its quoted tag: clients that send the version they read mean exactly that,
 * and refusing it would answer 412 to a request whose version is current.
 */
function ifMatchAccepts(header: string, version: number): boolean {
  const wanted = etagOf(version);
  const bare = String(version);
  return header
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === '*' || tag === wanted || tag === bare);
}

/** 412 for an If-Match that names another version, with the current one. */
export const preconditionFailed = (currentVersion: number) =>
  new ProblemError(412, 'PRECONDITION_FAILED', `If-Match does not match the current version ${currentVersion}`, { extra: { currentVersion } });

/** Throws 412 unless the If-Match header (when sent) names `version`. */
export function assertIfMatch(ifMatch: string | null, version: number): void {
  if (ifMatch !== null && !ifMatchAccepts(ifMatch, version)) throw preconditionFailed(version);
}
