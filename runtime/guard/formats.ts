// The `format` values a guard may use, registered once in TypeBox's FormatRegistry (which the
// compiled checks call). src/core/http/validate.ts owns uuid, uri and date-time; it is imported first
// so its definitions win and are never registered twice.
import '../../src/core/http/index.ts';
import { isIPv6 } from 'node:net';
import { FormatRegistry } from '@sinclair/typebox';
import { isDate, isDateTime, isTime } from '../../src/core/lib/index.ts';

export { isDate, isTime } from '../../src/core/lib/index.ts';

export const GUARD_FORMATS = ['date-time', 'date', 'time', 'email', 'uuid', 'uri', 'ipv4', 'ipv6', 'hostname'] as const;
export type GuardFormat = (typeof GUARD_FORMATS)[number];

export const isGuardFormat = (name: string): name is GuardFormat => (GUARD_FORMATS as readonly string[]).includes(name);

const EMAIL_LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/i;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A host name as RFC 1123 writes it: dot-separated labels of letters, digits and inner hyphens. */
export function isHostname(value: string): boolean {
  if (value.length === 0 || value.length > 253) return false;
  return value.split('.').every((label) => LABEL.test(label));
}

/** A pragmatic address check (dot-atom local part, host name domain), bounded by RFC 5321's 254. */
export function isEmail(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.lastIndexOf('@');
  if (at < 1 || at > 64) return false;
  const domain = value.slice(at + 1);
  return EMAIL_LOCAL.test(value.slice(0, at)) && domain.includes('.') && isHostname(domain);
}

export const isIpv4 = (value: string): boolean => value.length <= 15 && IPV4.test(value);

/** RFC 4291 text forms; zone identifiers (`%eth0`) are not addresses and are refused. */
export const isIpv6 = (value: string): boolean => value.length <= 45 && !value.includes('%') && isIPv6(value);

const OWN: Record<GuardFormat, (value: string) => boolean> = {
  date: isDate,
  time: isTime,
  email: isEmail,
  ipv4: isIpv4,
  ipv6: isIpv6,
  hostname: isHostname,
  // Fallbacks only: validate.ts registers these first.
  uuid: (v) => UUID.test(v),
  uri: (v) => v.length <= 2048 && /^[a-z][a-z0-9+.-]*:/i.test(v) && URL.canParse(v),
  'date-time': isDateTime,
};

// The registry is process-global and Elysia registers looser `date`, `email`… of its own when it
// loads (only where nothing is registered yet): the formats a guard documents are ours, always
// (validate.ts, imported above, owns the shared three and sets them unconditionally too).
const SHARED: ReadonlySet<GuardFormat> = new Set(['uuid', 'uri', 'date-time']);
for (const name of GUARD_FORMATS) if (!SHARED.has(name)) FormatRegistry.Set(name, OWN[name]);

/** The registered check for a supported format (the one the compiled guard calls). */
export function formatCheck(name: GuardFormat): (value: string) => boolean {
  return FormatRegistry.Get(name) ?? OWN[name];
}
