// Turns an HTTP request into the component's execution input: sanitized headers and the JSON
// body within the runtime's limits.
import { InvalidUtf8Error, NO_BODY, readJsonText, MAX_JSON_DEPTH, nestsDeeperThan } from '../src/core/http/index.ts';

const RUNTIME_BODY_LIMIT = 1024 * 1024;

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

export type ParsedBody = { kind: 'none' } | { kind: 'json'; value: unknown; /** the text it was parsed from */ text: string } | { kind: 'malformed'; message: string };

/** Reads a request body: 413 over 1 MiB, 415 when a body is not JSON; malformed JSON is reported, not thrown. */
export async function readBody(request: Request): Promise<ParsedBody> {
  const text = await readJsonText(request, RUNTIME_BODY_LIMIT);
  if (text === NO_BODY) return { kind: 'none' };
  if (text instanceof InvalidUtf8Error) return { kind: 'malformed', message: 'not valid UTF-8' };
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return { kind: 'malformed', message: `nested deeper than ${MAX_JSON_DEPTH} levels` };
  try {
    return { kind: 'json', value: JSON.parse(text), text };
  } catch (error) {
    return { kind: 'malformed', message: (error as Error).message };
  }
}
