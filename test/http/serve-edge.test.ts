// The control plane's socket edge (src/serve.ts): what arrives before Elysia routes a request.
// A short Host header (a service named `api`) and a CONNECT request target that is no URL.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { ADMIN_KEY, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { routable } from '../../src/serve.ts';

let p: TestPlatform;
let server: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  p = await startTestPlatform();
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => p.app.handle(routable(request)) });
});
afterAll(async () => {
  await server.stop(true);
  await p.close();
});

/** One raw HTTP/1.1 exchange; returns the status line and the body. */
async function raw(request: string): Promise<{ status: number; body: string }> {
  const { promise, resolve } = Promise.withResolvers<string>();
  let text = '';
  const socket = await Bun.connect({
    hostname: '127.0.0.1',
    port: server.port!,
    socket: {
      data: (_s, chunk) => {
        text += new TextDecoder().decode(chunk);
        const head = text.indexOf('\r\n\r\n');
        const length = /content-length: (\d+)/i.exec(text)?.[1];
        if (head !== -1 && length !== undefined && text.length >= head + 4 + Number(length)) resolve(text);
      },
      close: () => resolve(text),
    },
  });
  socket.write(request);
  const response = await promise;
  socket.end();
  return { status: Number(response.split(' ')[1]), body: response.slice(response.indexOf('\r\n\r\n') + 4) };
}

test('a Host of three characters or fewer reaches the same routes', async () => {
  for (const host of ['api', 'cp', 'x', 'ab:1']) {
    expect((await raw(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)).status).toBe(200);
    const body = '{"name":"short-host-' + host.replace(':', '') + '"}';
    const created = await raw(`POST /api/v1/workspaces HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    expect(created.status).toBe(201);
    expect(JSON.parse(created.body).name).toBe(`short-host-${host.replace(':', '')}`);
  }
});

test('CONNECT (a request target that is no URL) is a problem+json answer, not a 500', async () => {
  const r = await raw('CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\nConnection: close\r\n\r\n');
  expect(r.status).toBeGreaterThanOrEqual(400);
  expect(r.status).toBeLessThan(500);
  expect(JSON.parse(r.body)).toMatchObject({ status: r.status });
});
