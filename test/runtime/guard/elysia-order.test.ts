// Regression: Elysia registers looser formats in TypeBox's global registry when it loads (its
// `date-time` takes a bare date, its `uri` any scheme-like text); the guard's documented formats and
// the control plane's own must stay ours whatever was imported first. This file imports Elysia
// before anything of ours, which is the order that used to let Elysia's win.
import { expect, test } from 'bun:test';
import 'elysia';
import { compileGuardSchema } from '../../../runtime/guard/index.ts';
import { compile } from '../../../src/core/http/validate.ts';
import { Type } from '@sinclair/typebox';

const guard = (format: string) => {
  const r = compileGuardSchema({ type: 'string', format });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.guard;
};

test('format date stays strict when Elysia loaded first', () => {
  expect(guard('date').check('2024-02-29')).toBe(true);
  expect(guard('date').check('2023-02-29')).toBe(false);
});

test('format date-time stays strict when Elysia loaded first', () => {
  expect(guard('date-time').check('2024-01-01T10:00:00Z')).toBe(true);
  expect(guard('date-time').check('2024-01-01')).toBe(false);
  expect(compile(Type.String({ format: 'date-time' })).check('2024-01-01')).toBe(false);
});

test('formats uri and uuid stay ours when Elysia loaded first', () => {
  expect(guard('uri').check('https://example.com/a')).toBe(true);
  expect(guard('uri').check('not a uri')).toBe(false);
  expect(guard('uuid').check('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b')).toBe(true);
  expect(guard('uuid').check('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5')).toBe(false);
});
