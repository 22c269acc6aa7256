// Turns an HTTP request into the component's execution input: sanitized headers and the JSON
// body within the runtime's limits.
import { ProblemError } from '../src/http/problem.ts';
import { isJsonContentType } from '../src/http/body.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../src/http/json-depth.ts';

export const RUNTIME_BODY_LIMIT = 1024 * 1024;
/**
 * Bun.serve's own cap, far above ours: Bun answers a body over its cap with a bare 413 (no
 * problem body, no x-svc-oid), so the runtime enforces the limit itself and never reads past it.
 */
export const SERVER_BODY_CAP = 2 ** 40;

/** Headers component code never sees (DESIGN §8). */
export function sanitizeHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name === 'authorization' || name === 'proxy-authorization' || name === 'cookie') return;
    if (name.startsWith('x-svc-') || name.startsWith('x-platform-')) return;
    out[name] = value;
  });
  return out;
}

export type ParsedBody = { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'malformed'; message: string };

/** Reads a request body: 413 over 1 MiB, 415 when a body is not JSON; malformed JSON is reported, not thrown. */
export async function readBody(request: Request): Promise<ParsedBody> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > RUNTIME_BODY_LIMIT) throw tooLarge();
  if (declared === '0' || (declared === null && !request.body)) return { kind: 'none' };
  // A declared length within the limit is read whole (Bun holds the body to it); a chunked one is
  // read up to the limit and refused past it.
  const text = declared !== null ? await request.text() : await readChunked(request);
  if (text.length === 0) return { kind: 'none' };
  // A UTF-16 unit is at most 3 UTF-8 bytes: only long texts need counting.
  if (text.length > RUNTIME_BODY_LIMIT / 3 && Buffer.byteLength(text) > RUNTIME_BODY_LIMIT) throw tooLarge();
  if (!isJsonContentType(request.headers.get('content-type'))) {
    throw new ProblemError(415, 'UNSUPPORTED_MEDIA_TYPE', 'A request body must be JSON (Content-Type: application/json)');
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return { kind: 'malformed', message: `nested deeper than ${MAX_JSON_DEPTH} levels` };
  try {
    return { kind: 'json', value: JSON.parse(text) };
  } catch (error) {
    return { kind: 'malformed', message: (error as Error).message };
  }
}

async function readChunked(request: Request): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > RUNTIME_BODY_LIMIT) {
      void reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const tooLarge = () => new ProblemError(413, 'PAYLOAD_TOO_LARGE', `The request body exceeds ${RUNTIME_BODY_LIMIT} bytes`);
