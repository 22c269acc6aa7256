// Optimistic locking of components, with the agents' rules (DESIGN §4): `version` in the body
// (409 VERSION_CONFLICT) and `If-Match: "<version>"` (412), both carrying `currentVersion`.
import { assertIfMatch, ProblemError } from '../core/http/index.ts';

export const versionConflict = (currentVersion: number) =>
  new ProblemError(409, 'VERSION_CONFLICT', `The component is at version ${currentVersion}`, { extra: { currentVersion } });

/** Throws 412 / 409 when the caller's precondition names another version. */
export function assertPreconditions(current: number, ifMatch: string | null, bodyVersion: number | undefined): void {
  assertIfMatch(ifMatch, current);
  if (bodyVersion !== undefined && bodyVersion !== current) throw versionConflict(current);
}
