// The responses of a generated operation: the shared problem+json responses kept once in
// `components.responses`, and a small collector that merges two responses landing on one status
// (a validation-failure status of 404, say, next to the standard 404).
import type { JsonObject } from './schemas.ts';

const PROBLEM = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };
const OID_HEADER = { 'x-svc-oid': { $ref: '#/components/headers/XSvcOid' } };

const STANDARD_RESPONSES = {
  BadRequest: { status: '400', description: 'Malformed JSON or an invalid request (problem+json listing the violations)' },
  Unauthorized: { status: '401', description: 'No credential, or an invalid one' },
  Forbidden: {
    status: '403',
    description:
      'FORBIDDEN: the caller lacks ENDPOINT_INVOKE or INSTANCE_ADMIN; EXECUTION_ACCOUNT_UNUSABLE: the execution account is unusable; ' +
      'REVISION_NOT_APPROVED: no revision of the component is approved to run as the service account',
  },
  NotFound: { status: '404', description: 'No active Endpoint matches this method and path' },
  PayloadTooLarge: { status: '413', description: 'The request body is over 1 MiB' },
  UriTooLong: { status: '414', description: 'URI_TOO_LONG: the path and query are over 16 KiB' },
  UnsupportedMediaType: { status: '415', description: 'A body was sent that is not JSON' },
  ComponentError: { status: '500', description: 'The component threw an error (COMPONENT_ERROR)' },
  BadGateway: { status: '502', description: 'The executor failed, or the result is over 1 MiB' },
  ComponentNotReady: { status: '503', description: 'A custom Node.js component has no ready revision selected' },
  Timeout: { status: '504', description: 'The execution deadline (timeoutMs) passed; the invocation is not retried' },
} as const;

export type StandardResponse = keyof typeof STANDARD_RESPONSES;

const standardBody = (name: StandardResponse): JsonObject => ({ description: STANDARD_RESPONSES[name].description, headers: OID_HEADER, content: PROBLEM });

/** `components.responses` and `components.headers` for the document. */
export function responseComponents(): { responses: JsonObject; headers: JsonObject } {
  const responses: JsonObject = {};
  for (const name of Object.keys(STANDARD_RESPONSES) as StandardResponse[]) responses[name] = standardBody(name);
  return {
    responses,
    headers: {
      XSvcOid: { description: 'The distributed operation identifier (continued from the request when valid)', schema: { type: 'string' } },
      XExecutionId: { description: 'The Execution ID of this invocation, distinct from x-svc-oid', schema: { type: 'string' } },
    },
  };
}

export class ResponseSet {
  private readonly byStatus = new Map<string, JsonObject>();
  private readonly standard = new Map<string, StandardResponse>();

  /** A response of this operation's own; merged with whatever else is already at `status`. */
  add(status: number | string, response: JsonObject): void {
    const key = String(status);
    const existing = this.byStatus.get(key) ?? this.inlineStandard(key);
    this.byStatus.set(key, existing ? merge(existing, response) : response);
  }

  /** A shared problem response, as a `$ref` unless the status is also used by a response of its own. */
  addStandard(name: StandardResponse): void {
    const key = STANDARD_RESPONSES[name].status;
    const existing = this.byStatus.get(key);
    if (existing) this.byStatus.set(key, merge(existing, standardBody(name)));
    else if (!this.standard.has(key)) this.standard.set(key, name);
  }

  toJSON(): JsonObject {
    const out: JsonObject = {};
    const keys = [...new Set([...this.byStatus.keys(), ...this.standard.keys()])].sort((a, b) => (a === 'default' ? 1 : b === 'default' ? -1 : a.localeCompare(b)));
    for (const key of keys) out[key] = this.byStatus.get(key) ?? { $ref: `#/components/responses/${this.standard.get(key)}` };
    return out;
  }

  private inlineStandard(key: string): JsonObject | undefined {
    const name = this.standard.get(key);
    if (!name) return undefined;
    this.standard.delete(key);
    return standardBody(name);
  }
}

/** Two responses on one status: descriptions joined, headers and media types united. */
function merge(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { description: `${String(a.description)} / ${String(b.description)}` };
  const headers = { ...(a.headers as JsonObject | undefined), ...(b.headers as JsonObject | undefined) };
  if (Object.keys(headers).length > 0) out.headers = headers;
  const content: JsonObject = { ...(a.content as JsonObject | undefined) };
  for (const [type, media] of Object.entries((b.content as JsonObject | undefined) ?? {})) {
    const first = content[type] as JsonObject | undefined;
    // The same media type twice: either body may come, so either schema; examples no longer apply.
    content[type] = first ? { schema: { anyOf: [first.schema ?? {}, (media as JsonObject).schema ?? {}] } } : media;
  }
  if (Object.keys(content).length > 0) out.content = content;
  return out;
}
