// API key format: `sk-plt_` + 40 base62 random chars + 6 base62 checksum chars (CRC-32 of the body).
// The checksum lets a mistyped generated key be refused before any database lookup.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { platform } from '../platform/index.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const PREFIX = 'sk-plt_';
const BODY_LENGTH = 40;
const CHECKSUM_LENGTH = 6;
const GENERATED = /^sk-plt_[0-9A-Za-z]{46}$/;

function base62(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

const { crc32 } = platform;
const checksum = (body: string) => base62(crc32(body), CHECKSUM_LENGTH);

/** A new random key; shown to its owner once, stored only as its SHA-256 digest. */
export function generateApiKey(): string {
  const bytes = randomBytes(BODY_LENGTH);
  let body = '';
  // 256 % 62 bias is negligible for 40 characters of 5.95 bits each (≈238 bits of entropy).
  for (const b of bytes) body += ALPHABET[b % 62];
  return PREFIX + body + checksum(body);
}

/**
 * Cheap shape check before any lookup: every key starts with `sk-`; one in the generated
 * format must carry a valid checksum. Other `sk-` keys (an operator's PLATFORM_ADMIN_API_KEY) pass.
 */
export function plausibleApiKey(key: string): boolean {
  if (!key.startsWith('sk-') || key.length < 32 || key.length > 512) return false;
  if (!key.startsWith(PREFIX)) return true;
  if (!GENERATED.test(key)) return false;
  const body = key.slice(PREFIX.length, PREFIX.length + BODY_LENGTH);
  return key.slice(PREFIX.length + BODY_LENGTH) === checksum(body);
}

/** The key's SHA-256 digest, as hex: what is stored and looked up. */
export const hashApiKey: (key: string) => string = platform.sha256Hex;

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
