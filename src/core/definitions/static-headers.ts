// Header rules for a static response (RFC 9110 §5, §7.6.1): what the runtime may send without
// failing every invocation or speaking for the connection. Refused at create/PATCH; the runtime
// skips what rows stored before a rule still hold, and contract validation warns of it.
import type { Violation } from '../http/index.ts';

/** RFC 9110 `token`: the characters a field name may hold. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_NAME_LENGTH = 100;
/** Controls other than HTAB (CR, LF and NUL among them) and DEL: a value is visible characters, spaces and tabs. */
const CONTROL = /[\x00-\x08\x0A-\x1F\x7F]/;
/** Past Latin-1 a character is no single octet on the wire, and Bun refuses the header. */
const WIDE = /[^\x00-\xFF]/;
/**
 * Hop-by-hop fields (RFC 9110 §7.6.1) describe one connection, the server's with its client, never
 * an Endpoint's answer: a configured `Connection: close` closed every keep-alive connection after
 * one response, `Upgrade` and `Proxy-*` announced what the server does not do. `proxy-*` is matched
 * by prefix.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'transfer-encoding']);

/** `x-execution-id` and the `x-svc-*` names are the platform's own (DESIGN §8); `name` is lower case. */
const isPlatformHeader = (name: string): boolean => name === 'x-execution-id' || name.startsWith('x-svc-');

/** `name` is lower case. */
const isHopByHopHeader = (name: string): boolean => HOP_BY_HOP.has(name) || name.startsWith('proxy-');

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** What is wrong with one configured header, or null when HTTP and the rules allow it. */
function headerProblem(name: string, value: unknown): string | null {
  if (!TOKEN.test(name) || name.length > MAX_NAME_LENGTH) {
    return `A header name is 1 to ${MAX_NAME_LENGTH} RFC 9110 token characters (letters, digits and !#$%&'*+-.^_\`|~)`;
  }
  if (isHopByHopHeader(name.toLowerCase())) {
    return 'A hop-by-hop header (connection, keep-alive, upgrade, proxy-*, te, trailer, transfer-encoding) belongs to the connection, not to the response';
  }
  if (typeof value === 'string' && CONTROL.test(value)) return 'A header value may not contain control characters (CR, LF, NUL, …) other than tab';
  if (typeof value === 'string' && WIDE.test(value)) return 'A header value holds characters up to U+00FF only';
  return null;
}

/**
 * Whether the runtime sends a configured header: a string value, no rule broken, and not one of
 * the platform's own (those are accepted at create and always replaced by the platform's values).
 */
export const isServedHeader = (name: string, value: unknown): value is string =>
  typeof value === 'string' && !isPlatformHeader(name.toLowerCase()) && headerProblem(name, value) === null;

/**
 * Violations of the header rules in a create or PATCH body's `staticResponse.headers`, one per
 * header at `/staticResponse/headers/<name>`. Accepts any value (it also runs on bodies that
 * failed the schema, and on stored definitions).
 */
export function staticHeaderViolations(body: unknown): Violation[] {
  const staticResponse = (body as { staticResponse?: unknown } | null)?.staticResponse;
  const headers = (staticResponse as { headers?: unknown } | null)?.headers;
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) return [];
  const out: Violation[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const message = headerProblem(name, value);
    if (message !== null) out.push({ pointer: `/staticResponse/headers/${escapePointer(name)}`, message });
  }
  return out;
}
