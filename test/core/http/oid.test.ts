// x-svc-oid: a valid incoming oid is continued; one shaped like a credential never is (the oid is
// echoed in responses and written in every log line of the request).
import { expect, test } from 'bun:test';
import { operationId } from '../../../src/core/http/index.ts';

test('a valid oid is continued; a missing, malformed or credential-shaped one is replaced', () => {
  expect(operationId('my-oid.1:a_b')).toBe('my-oid.1:a_b');
  for (const incoming of [null, '', 'has space', 'x'.repeat(129), 'sk-plt_abcdefghijklmnopqrstuvwxyz0123', 'sk-admin-key-0123456789abcdefghijklm', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln']) {
    const oid = operationId(incoming);
    expect(oid).not.toBe(incoming);
    expect(oid).toMatch(/^[0-9a-f-]{36}$/);
  }
});
