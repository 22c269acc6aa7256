// An Endpoint's static response, made ready once per index build: the runtime's respond.ts sends
// it with one spread per request.
import { carriesNoContent } from '../../src/core/http/index.ts';
import { isServedHeader } from '../../src/core/definitions/index.ts';

const JSON_TYPE = 'application/json';

export interface PreparedStatic {
  status: number;
  body: string | null;
  headers: Record<string, string>;
}

/**
 * The static response, serialised once per index build. A configured non-JSON content type sends
 * a string body as is; everything else is JSON.
 *
 * Header names are case-insensitive, and Bun merges two spellings of one name into one field: so
 * any spelling of a platform header is dropped here (else `X-Svc-Oid` would arrive as
 * `forged, <oid>`), and every spelling of content-type collapses into one, the last configured.
 * A header the control plane's rules refuse (a row stored before them: one the runtime cannot send,
 * or a hop-by-hop one, which would speak for the connection) is skipped rather than failing every
 * invocation; validation warns of it. Done here, the per-request path stays one spread.
 */
export function prepareStatic(s: { status: number; headers?: Record<string, string>; body?: unknown }): PreparedStatic {
  let type: string | undefined;
  const kept: [string, string][] = [];
  for (const [name, value] of Object.entries(s.headers ?? {})) {
    if (!isServedHeader(name, value)) continue;
    if (name.toLowerCase() === 'content-type') type = value;
    else kept.push([name, value]);
  }
  // fromEntries defines own properties, so even a header named `__proto__` stays a header.
  const headers: Record<string, string> = Object.fromEntries(kept);
  if (s.body === undefined) {
    if (type !== undefined) headers['content-type'] = type;
    return { status: s.status, body: null, headers };
  }
  if (carriesNoContent(s.status)) return { status: s.status, body: null, headers };
  headers['content-type'] = type ?? JSON_TYPE;
  if (type !== undefined && typeof s.body === 'string' && !/json/i.test(type)) return { status: s.status, body: s.body, headers };
  return { status: s.status, body: JSON.stringify(s.body), headers };
}
