// A port bound before the platform behind it is built (src/core/http/listener.ts): until then every
// request is a 503 problem+json with x-svc-oid and Retry-After; from then on the handler answers.
import { expect, test } from 'bun:test';
import { listen } from '../../src/core/http/listener.ts';

test('before its handler is set a bound port answers 503 problem+json; then the handler answers', async () => {
  const listener = listen(0);
  try {
    expect(listener.port).toBeGreaterThan(0);
    const early = await fetch(`http://127.0.0.1:${listener.port}/api/v1/me`, { headers: { 'x-svc-oid': 'start-1' } });
    expect(early.status).toBe(503);
    expect(early.headers.get('content-type')).toContain('application/problem+json');
    expect(early.headers.get('retry-after')).toBe('1');
    expect(early.headers.get('x-svc-oid')).toBe('start-1');
    expect(await early.json()).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', oid: 'start-1' });
    listener.handle((request) => new Response(`ready ${new URL(request.url).pathname}`));
    const later = await fetch(`http://127.0.0.1:${listener.port}/api/v1/me`);
    expect(later.status).toBe(200);
    expect(await later.text()).toBe('ready /api/v1/me');
  } finally {
    listener.server.stop(true);
  }
});
