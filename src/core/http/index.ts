// HTTP as both origins speak it: problem+json errors and their codes, x-svc-oid, bodies and
// their limits, request-target limits, ETags, the port listener, TypeBox validation and schema blocks.

export { InvalidUtf8Error, NO_BODY, readJsonBody, readJsonText, validBody } from './body.ts';
export { assertIfMatch, etagOf, preconditionFailed } from './etag.ts';
export { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.ts';
export { listen, type Listener } from './listener.ts';
export { operationId } from './oid.ts';
export {
  databaseUnavailable,
  forbidden,
  invalidQuery,
  notFound,
  PROBLEM_CODES,
  type ProblemCode,
  ProblemError,
  problemResponse,
  type Violation,
} from './problem.ts';
export { CONTROL_PLANE_TARGET_LIMIT, RUNTIME_TARGET_LIMIT, targetTooLong, uriTooLong } from './request-target.ts';
export { JsonObject, NamedRecord, NonEmpty, Strict, StringEnum, StringList, Uuid, UuidList } from './schema-blocks.ts';
export { carriesNoContent } from './status.ts';
export { compile } from './validate.ts';
