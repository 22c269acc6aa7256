// One error type for both origins: thrown anywhere, rendered as RFC 9457 problem+json.

/** Stable machine codes (the OpenAPI document lists them). Switches over them must be exhaustive. */
export const PROBLEM_CODES = [
  'BAD_REQUEST',
  'MALFORMED_JSON',
  'INVALID_QUERY',
  'QUERY_TIMEOUT',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'PLATFORM_ACCESS_DISABLED',
  'DEBUG_FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'VERSION_CONFLICT',
  'ROUTE_CONFLICT',
  'AGENT_DISABLED',
  'RUN_FINISHED',
  'MAX_CHILD_RUNS',
  'IDEMPOTENCY_KEY_REUSED',
  'APPROVAL_RESOLVED',
  'ENDPOINT_ACTIVE',
  'COMPONENT_IN_USE',
  'DEPLOYMENT_NOT_READY',
  'CONFLICT',
  'PRECONDITION_FAILED',
  'PAYLOAD_TOO_LARGE',
  'URI_TOO_LONG',
  'UNSUPPORTED_MEDIA_TYPE',
  'VALIDATION_FAILED',
  'RESERVED_METADATA_KEY',
  'METADATA_TOO_LARGE',
  'MODEL_NOT_ENABLED',
  'UNKNOWN_DIGEST',
  'INVALID_DEFINITION',
  'SOURCE_INVALID',
  'EXECUTION_ACCOUNT_UNUSABLE',
  'CREDENTIAL_FROM_EXECUTION',
  'CLIENT_CLOSED_REQUEST',
  'COMPONENT_ERROR',
  'EXECUTOR_CRASHED',
  'EXECUTOR_RESOURCE_LIMIT',
  'RESULT_TOO_LARGE',
  'COMPONENT_NOT_READY',
  'REVISION_NOT_APPROVED',
  'EXECUTION_TIMEOUT',
  'SERVICE_UNAVAILABLE',
  'INTERNAL',
] as const;
export type ProblemCode = (typeof PROBLEM_CODES)[number];

/** One violation inside a 4xx problem: a JSON pointer into the request and what is wrong there. */
export interface Violation {
  pointer: string;
  message: string;
  code?: ProblemCode;
}

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  412: 'Precondition failed',
  413: 'Payload too large',
  414: 'URI too long',
  415: 'Unsupported media type',
  422: 'Unprocessable content',
  499: 'Client closed request',
  500: 'Internal error',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway timeout',
};

/** Codes whose title is more specific than their status's (DESIGN §3 shows "Version conflict"). */
const CODE_TITLES: Partial<Record<ProblemCode, string>> = {
  VERSION_CONFLICT: 'Version conflict',
};

export interface ProblemOptions {
  title?: string;
  errors?: Violation[];
  /** Extra members of the problem body (e.g. `currentVersion`, `conflictingEndpointId`). */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export class ProblemError extends Error {
  readonly status: number;
  readonly code: ProblemCode;
  readonly title: string;
  readonly errors: Violation[] | undefined;
  readonly extra: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(status: number, code: ProblemCode, detail: string, options: ProblemOptions = {}) {
    super(detail);
    this.name = 'ProblemError';
    this.status = status;
    this.code = code;
    this.title = options.title ?? CODE_TITLES[code] ?? TITLES[status] ?? 'Error';
    this.errors = options.errors;
    this.extra = options.extra;
    this.headers = options.headers;
  }

  /** The problem+json body; `oid` ties it to the `x-svc-oid` response header. */
  toJSON(oid?: string): Record<string, unknown> {
    const body: Record<string, unknown> = {
      type: 'about:blank',
      title: this.title,
      status: this.status,
      code: this.code,
      detail: this.message,
    };
    if (this.errors && this.errors.length > 0) body.errors = this.errors;
    if (this.extra) Object.assign(body, this.extra);
    if (oid !== undefined) body.oid = oid;
    return body;
  }
}

const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Renders a problem as a Response; used by both origins so the shape never drifts. */
export function problemResponse(problem: ProblemError, oid: string, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(problem.toJSON(oid)), {
    status: problem.status,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, 'x-svc-oid': oid, ...problem.headers, ...headers },
  });
}

/** The database cannot serve right now: the request may be retried (503 with Retry-After), nothing was changed by it. */
export const databaseUnavailable = () =>
  new ProblemError(503, 'SERVICE_UNAVAILABLE', 'The database is unavailable; retry shortly', { headers: { 'retry-after': '1' } });

export const invalidQuery = (detail: string, pointer: string) =>
  new ProblemError(400, 'INVALID_QUERY', detail, { errors: [{ pointer, message: detail }] });
export const notFound = (what: string) => new ProblemError(404, 'NOT_FOUND', `${what} not found`);
export const forbidden = (detail: string) => new ProblemError(403, 'FORBIDDEN', detail);
