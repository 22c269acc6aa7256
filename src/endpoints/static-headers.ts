// Header rules for a static response (RFC 9110 §5): what the runtime can send without failing every
// invocation. Refused at create/PATCH; the runtime also skips rows stored before the rule.
import type { Violation } from '../http/problem.ts';

/** RFC 9110 `token`: the characters a field name may hold. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_NAME_LENGTH = 100;
/** Controls other than HTAB (CR, LF and NUL among them) and DEL: a value is visible characters, spaces and tabs. */
const CONTROL = /[\x00-\x08\x0A-\x1F\x7F]/;
/** Past Latin-1 a character is no single octet on the wire, and Bun refuses the header. */
const WIDE = /[^\x00-\xFF]/;

/** `x-execution-id` and the `x-svc-*` names are the platform's own (DESIGN §8); `name` is lower case. */
export const isPlatformHeader = (name: string): boolean => name === 'x-execution-id' || name.startsWith('x-svc-');

export const isHeaderName = (name: string): boolean => TOKEN.test(name);
export const isHeaderValue = (value: string): boolean => !CONTROL.test(value) && !WIDE.test(value);

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Violations of the header rules in a create or PATCH body's `staticResponse.headers`, one per
 * header at `/staticResponse/headers/<name>`. Accepts any value (it also runs on bodies that
 * failed the schema).
 */
export function staticHeaderViolations(body: unknown): Violation[] {
  const staticResponse = (body as { staticResponse?: unknown } | null)?.staticResponse;
  const headers = (staticResponse as { headers?: unknown } | null)?.headers;
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) return [];
  const out: Violation[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const pointer = `/staticResponse/headers/${escapePointer(name)}`;
    if (!isHeaderName(name) || name.length > MAX_NAME_LENGTH) {
      out.push({ pointer, message: `A header name is 1 to ${MAX_NAME_LENGTH} RFC 9110 token characters (letters, digits and !#$%&'*+-.^_\`|~)` });
    } else if (typeof value === 'string' && CONTROL.test(value)) {
      out.push({ pointer, message: 'A header value may not contain control characters (CR, LF, NUL, …) other than tab' });
    } else if (typeof value === 'string' && WIDE.test(value)) {
      out.push({ pointer, message: 'A header value holds characters up to U+00FF only' });
    }
  }
  return out;
}
