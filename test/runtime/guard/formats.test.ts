// The formats a guard may name, each with values on both sides of the line.
import { describe, expect, test } from 'bun:test';
import { compileGuardSchema, GUARD_FORMATS } from '../../../runtime/guard/index.ts';

const table: Record<(typeof GUARD_FORMATS)[number], { valid: string[]; invalid: string[] }> = {
  'date-time': { valid: ['2024-02-29T12:30:00Z', '2024-01-01T00:00:00.123+02:00', '2000-02-29T00:00:00Z'], invalid: ['2024-01-01', '2024-01-01 00:00:00Z', '2024-01-01T00:00:00', 'x', '2023-02-29T12:00:00Z', '2024-04-31T00:00:00Z', '1900-02-29T00:00:00Z', '2024-01-01T25:00:00Z'] },
  date: { valid: ['2024-02-29', '2000-02-29', '2023-12-31'], invalid: ['2023-02-29', '1900-02-29', '2024-04-31', '2024-00-10', '24-01-01', '2024-01-01T00:00:00Z'] },
  time: { valid: ['23:59:59Z', '00:00:00.5+05:30', '23:59:60Z'], invalid: ['24:00:00Z', '12:00:00', '12:60:00Z', '12:00Z'] },
  email: { valid: ['a@example.com', 'first.last+tag@sub.example.org'], invalid: ['a@b', '@example.com', 'a..b@example.com', 'a@-x.com', 'a b@example.com', 'a@' + 'x'.repeat(250) + '.com'] },
  uuid: { valid: ['123e4567-e89b-12d3-a456-426614174000'], invalid: ['123e4567e89b12d3a456426614174000', '123e4567-e89b-12d3-a456-42661417400g'] },
  uri: { valid: ['https://example.com/a?b=c', 'urn:isbn:0451450523', 'mailto:a@b.co'], invalid: ['/relative/path', 'example.com', 'http://'] },
  ipv4: { valid: ['0.0.0.0', '192.168.1.255'], invalid: ['256.1.1.1', '01.2.3.4', '1.2.3', '1.2.3.4.5'] },
  ipv6: { valid: ['::1', '2001:db8::8a2e:370:7334', '::ffff:192.0.2.1'], invalid: ['1::2::3', 'fe80::1%eth0', '12345::', '1.2.3.4'] },
  hostname: { valid: ['example.com', 'a-b.c1', 'localhost'], invalid: ['-a.com', 'a_b.com', 'a..b', 'x'.repeat(64) + '.com', ''] },
};

describe('formats', () => {
  for (const format of GUARD_FORMATS) {
    test(format, () => {
      const result = compileGuardSchema({ type: 'string', format });
      if (!result.ok) throw new Error(JSON.stringify(result.errors));
      for (const v of table[format].valid) expect({ v, ok: result.guard.check(v) }).toEqual({ v, ok: true });
      for (const v of table[format].invalid) expect({ v, ok: result.guard.check(v) }).toEqual({ v, ok: false });
      expect(result.guard.violations(table[format].invalid[0])).toEqual([{ pointer: '', message: `Expected a valid ${format}` }]);
    });
  }
});
