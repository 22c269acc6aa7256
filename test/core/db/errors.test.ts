// Which database errors mean "unavailable right now" (503, retry) rather than a bug (500).
import { describe, expect, test } from 'bun:test';
import postgres from 'postgres';
import { isDatabaseUnavailable, isUniqueViolation } from '../../../src/core/db/errors.ts';

describe('isDatabaseUnavailable', () => {
  test('a refused connection (postgres.js, real socket) is unavailable, also when wrapped', async () => {
    const sql = postgres('postgres://postgres@127.0.0.1:1/none', { max: 1, connect_timeout: 2, onnotice: () => {} });
    const error = await sql`select 1`.then(() => null, (e: unknown) => e);
    await sql.end({ timeout: 0 });
    expect(error).not.toBeNull();
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(isDatabaseUnavailable(new Error('Failed query', { cause: error }))).toBe(true);
  });

  test('server-side refusals by SQLSTATE: shutdown, cannot connect now, too many connections', () => {
    for (const code of ['57P01', '57P03', '53300', '08006', '55000']) expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code }))).toBe(true);
  });

  test('constraint violations and plain errors are not', () => {
    const unique = Object.assign(new Error('duplicate key'), { code: '23505' });
    expect(isUniqueViolation(unique)).toBe(true);
    expect(isDatabaseUnavailable(unique)).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('boom'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
  });
});
