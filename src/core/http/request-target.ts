// The longest request target (path and query) each origin takes: longer is 414 URI_TOO_LONG
// problem+json. Bun refuses a request head over --max-http-header-size (131072 bytes in the start
// scripts) itself, with a bare 431, before any handler runs; these limits sit below it, so a long
// URL gets an answer that says what is wrong, with x-svc-oid, on both origins.
import { ProblemError } from './problem.ts';

/**
 * The runtime's: a query its guards and components read. 16 KiB is Bun's default head size and a
 * common URL limit of CDNs and proxies in front of an API; a request body takes up to 1 MiB.
 */
export const RUNTIME_TARGET_LIMIT = 16 * 1024;

/**
 * The control plane's: list queries are long (a 1000-value bracket-style `in` list of UUIDs is
 * 55–63 KiB, brackets percent-encoded or not). 120 KiB leaves 8 KiB of Bun's 128 KiB head for
 * the rest of the request line and the headers.
 */
export const CONTROL_PLANE_TARGET_LIMIT = 120 * 1024;

/**
 * Whether the request target of `url` (a request's URL: `http://host`, then the target as sent, a
 * fragment included) is over `limit` characters, bytes outside ASCII counted percent-encoded (Bun
 * encodes them in the URL; Deno leaves them as characters, each up to 9 encoded). One comparison
 * unless the URL is over a ninth of the limit; a long Host header alone never counts.
 */
export function targetTooLong(url: string, limit: number): boolean {
  if (url.length * 9 <= limit) return false;
  const scheme = url.indexOf('://');
  const start = url.indexOf('/', scheme === -1 ? 0 : scheme + 3);
  if (start === -1) return false;
  if (url.length - start > limit) return true;
  if (url.length <= limit && !NON_ASCII.test(url)) return false;
  let length = 0;
  for (const byte of ENCODER.encode(url.slice(start))) length += byte < 0x80 ? 1 : 3;
  return length > limit;
}

const NON_ASCII = /[^\x00-\x7f]/;
const ENCODER = new TextEncoder();

export const uriTooLong = (limit: number) =>
  new ProblemError(414, 'URI_TOO_LONG', `The request target (path and query) is over ${limit} characters`);
