// The save-time source checks run on a thread of their own within a time limit: a few hundred bytes
// that make the parser backtrack exponentially (nested `<T>(` in TypeScript) are refused once the
// limit passes, and the event loop serves on meanwhile.
import { afterAll, expect, test } from 'bun:test';
import { SourceChecker } from '../../src/components/source-checker.ts';
import { ProblemError } from '../../src/core/http/problem.ts';

const exponential = (n: number): string => '<T>('.repeat(n) + 'x' + ')'.repeat(n);
const checker = new SourceChecker(500);
afterAll(() => checker.close());

test('a source the parser would take 2^60 steps over is refused at the limit, and the event loop never waits for it', async () => {
  let worstLag = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    worstLag = Math.max(worstLag, now - last - 10);
    last = now;
  }, 10);
  const error = await checker.assertValid({ kind: 'node', source: `export default async () => 1;\n${exponential(60)}` }).catch((e: unknown) => e);
  clearInterval(ticker);
  expect(error).toBeInstanceOf(ProblemError);
  expect(error).toMatchObject({ status: 422, code: 'SOURCE_INVALID', errors: [{ pointer: '/source', message: 'The content took longer than 0.5 s to check' }] });
  expect(worstLag).toBeLessThan(400);
});

test('after a check ran past its limit, the next one runs on a fresh thread and answers', async () => {
  await expect(checker.assertValid({ kind: 'node', source: 'export default async () => 1;' })).resolves.toBeUndefined();
  await expect(checker.assertValid({ kind: 'lowcode', elements: [{ name: 'a', code: 'return (;', visible: true }] })).rejects.toMatchObject({ status: 422, errors: [{ pointer: '/elements/0/code' }] });
});

test('checks queue: each answers its own content', async () => {
  const results = await Promise.all([
    checker.assertValid({ kind: 'node', source: 'export default (' }).catch((e: ProblemError) => e.errors?.[0]?.pointer),
    checker.assertValid({ kind: 'json-validator', schema: { type: 'strin' } }).catch((e: ProblemError) => e.errors?.[0]?.pointer),
    checker.assertValid({ kind: 'node', source: 'export default async () => 2;' }).then(() => 'ok'),
  ]);
  expect(results).toEqual(['/source', '/schema/type', 'ok']);
});

test('a check thread that fails refuses the content (422), never a 500, and the next check gets a fresh thread', async () => {
  // Content no save could produce makes the pure check throw inside its thread.
  const broken = { kind: 'bogus' } as unknown as Parameters<SourceChecker['assertValid']>[0];
  await expect(checker.assertValid(broken)).rejects.toMatchObject({ status: 422, code: 'SOURCE_INVALID', message: 'The content could not be checked', errors: [{ pointer: '', message: 'The content could not be checked' }] });
  await expect(checker.assertValid({ kind: 'node', source: 'export default async () => 3;' })).resolves.toBeUndefined();
});
