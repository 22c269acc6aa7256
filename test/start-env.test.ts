// The allocator setting every way of starting the platform gives it (README, Configuration): the
// npm start scripts and the Docker image agree, and the benches start the platform with it too.
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { npmStartEnv } from '../bench/lib/process.ts';

const root = join(import.meta.dir, '..');
const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

test('every start script keeps freed memory for reuse unless the caller chose otherwise', () => {
  for (const name of ['start', 'start:control-plane', 'start:runtime']) {
    expect(scripts[name]).toStartWith('MIMALLOC_PURGE_DELAY=${MIMALLOC_PURGE_DELAY:--1} exec bun ');
  }
});

test('the Docker image sets the same', () => {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  expect(dockerfile).toMatch(/^ENV [^]*?\\\n\s+MIMALLOC_PURGE_DELAY=-1$/m);
});

test('the benches start the platform with what npm start sets, and a value from the caller wins', () => {
  expect(npmStartEnv({})).toEqual({ MIMALLOC_PURGE_DELAY: '-1' });
  expect(npmStartEnv({ MIMALLOC_PURGE_DELAY: '250' })).toEqual({ MIMALLOC_PURGE_DELAY: '250' });
  // As in the shell's ${NAME:-default}, an empty value counts as unset.
  expect(npmStartEnv({ MIMALLOC_PURGE_DELAY: '' })).toEqual({ MIMALLOC_PURGE_DELAY: '-1' });
});
