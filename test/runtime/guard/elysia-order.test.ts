// Regression: Elysia registers looser formats in TypeBox's global registry when it loads; the
// guard's documented formats must still be its own whatever was imported first.
import { expect, test } from 'bun:test';
import 'elysia';
import { compileGuardSchema } from '../../../runtime/guard/index.ts';

test('format date stays strict when Elysia loaded first', () => {
  const r = compileGuardSchema({ type: 'string', format: 'date' });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  expect(r.guard.check('2024-02-29')).toBe(true);
  expect(r.guard.check('2023-02-29')).toBe(false);
});
