// Request bodies on the control plane: JSON only, bounded, parsed once, validated with compiled schemas.
import { ProblemError, type Violation } from './problem.ts';
import type { Validator } from './validate.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.ts';

export const CONTROL_PLANE_BODY_LIMIT = 4 * 1024 * 1024;

export const isJsonContentType = (contentType: string | null | undefined): boolean => {
  if (!contentType) return false;
  const mediaType = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || (mediaType.startsWith('application/') && mediaType.endsWith('+json'));
};

/** Marks "no body was sent", distinct from a JSON `null`. */
export const NO_BODY: unique symbol = Symbol('no body');

/**
 * Reads and parses a JSON body: 413 over the limit, 415 when a body is not JSON,
 * 400 when it is malformed. Returns NO_BODY when the request carries none.
 */
export async function readJsonBody(request: Request, limit = CONTROL_PLANE_BODY_LIMIT): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) throw tooLarge(limit);
  const text = await request.text();
  if (text.length === 0) return NO_BODY;
  if (Buffer.byteLength(text) > limit) throw tooLarge(limit);
  if (!isJsonContentType(request.headers.get('content-type'))) {
    throw new ProblemError(415, 'UNSUPPORTED_MEDIA_TYPE', 'The request body must be JSON (Content-Type: application/json)');
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new ProblemError(400, 'BAD_REQUEST', `The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ProblemError(400, 'MALFORMED_JSON', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

const tooLarge = (limit: number) =>
  new ProblemError(413, 'PAYLOAD_TOO_LARGE', `The request body exceeds ${limit} bytes`);

/**
 * Validates a parsed body against a compiled schema plus optional semantic rules, reporting every
 * violation of both at once (422). `rules` must accept any value, since it also runs on bodies
 * that failed the schema. A missing body is 400.
 */
export function validBody<T>(body: unknown, validator: Validator<T>, rules?: (value: unknown) => Violation[]): T {
  if (body === NO_BODY || body === undefined) {
    throw new ProblemError(400, 'BAD_REQUEST', 'A JSON request body is required');
  }
  const schemaOk = validator.check(body);
  const violations = [...(schemaOk ? [] : validator.violations(body)), ...(rules ? rules(body) : [])];
  if (violations.length === 0) return body as T;
  // A single distinctive rule (e.g. a reserved metadata key) names the problem; anything mixed stays generic.
  const codes = new Set(violations.map((v) => v.code ?? 'VALIDATION_FAILED'));
  const code = codes.size === 1 ? [...codes][0]! : 'VALIDATION_FAILED';
  const detail = schemaOk ? violations[0]!.message : 'The request body does not match the schema';
  throw new ProblemError(422, code, detail, { errors: violations });
}
