// Which URLs may be called in plain http: loopback hosts only, and only when configured
// (MCP_ALLOW_HTTP_LOOPBACK). Used by the agent rules at update time and the MCP client at call time.

/**
 * Whether a URL's `hostname` (as the WHATWG parser gives it: lower case, IPv4 in dotted decimal,
 * IPv6 in brackets) names this machine: localhost, 127.0.0.0/8, ::1 or ::ffff:127.0.0.0/104.
 */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost') return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)) return true;
  return hostname === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname);
}

/** Why `url` may not be called, or null: https://, or http:// to a loopback host when allowed. */
export function plainHttpRefusal(url: URL, allowHttpLoopback: boolean): string | null {
  if (url.protocol === 'https:') return null;
  if (url.protocol !== 'http:') return 'must be an https:// URL';
  if (!allowHttpLoopback) return 'must be https:// (http:// is accepted only for loopback hosts, and only when MCP_ALLOW_HTTP_LOOPBACK=true)';
  return isLoopbackHost(url.hostname) ? null : 'http:// is accepted only for loopback hosts (localhost, 127.0.0.0/8, ::1); use https://';
}
