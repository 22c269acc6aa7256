// The edges of HTTP parsing on the processes `npm start` runs (both origins; Bun started with the
// package.json scripts' --max-http-header-size), over raw sockets: a request target over an
// origin's limit is 414 problem+json with x-svc-oid; what Bun refuses before any handler runs is
// answered by Bun alone, asserted byte for byte, since that is all a client gets.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { ADMIN_KEY } from '../helpers/platform.ts';
import { tempDir } from '../helpers/temp.ts';
import { CONTROL_PLANE_TARGET_LIMIT, RUNTIME_TARGET_LIMIT } from '../../src/core/http/request-target.ts';

const ROOT = join(import.meta.dir, '..', '..');
const scripts = ((await Bun.file(join(ROOT, 'package.json')).json()) as { scripts: Record<string, string> }).scripts;
const HEADER_FLAG = /--max-http-header-size=(\d+)/.exec(scripts.start!)!;
/** The whole request head Bun takes (request line, headers and the blank line), in bytes. */
const HEAD_LIMIT = Number(HEADER_FLAG[1]);

/** A POST route that reads the body on each origin. */
const BODY_PATHS = { control: '/api/v1/workspaces', runtime: '/edge/body' };

let child: ReturnType<typeof Bun.spawn>;
const ports = { control: 0, runtime: 0 };
beforeAll(async () => {
  const data = tempDir('request-edges');
  child = Bun.spawn([process.execPath, HEADER_FLAG[0], 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PORT: '0', RUNTIME_PORT: '0', DATA_DIR: data, DATABASE_URL: `sqlite:${join(data, 'p.db')}`, PLATFORM_ADMIN_API_KEY: ADMIN_KEY, COMPONENT_ISOLATION: 'worker', EXECUTOR_HOSTS: '1', LOG_LEVEL: 'info' },
    stdout: 'ignore',
    stderr: 'pipe',
  });
  const reader = (child.stderr as ReadableStream<Uint8Array>).getReader();
  let log = '';
  const deadline = Date.now() + 30_000;
  while ((!ports.control || !ports.runtime) && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`npm start exited:\n${log}`);
    log += new TextDecoder().decode(value);
    ports.control = Number(/control plane listening on http:\/\/[^:\s]+:(\d+)/.exec(log)?.[1] ?? 0);
    ports.runtime = Number(/endpoint runtime listening on http:\/\/[^:\s]+:(\d+)/.exec(log)?.[1] ?? 0);
  }
  reader.releaseLock();
  if (!ports.control || !ports.runtime) throw new Error(`npm start did not listen within 30 s:\n${log}`);
  // A runtime route that reads its body, as the control plane's POST /workspaces does.
  const auth = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
  const base = `http://127.0.0.1:${ports.control}/api/v1/endpoints`;
  const created = (await (await fetch(base, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'edge', method: 'POST', path: BODY_PATHS.runtime, staticResponse: { status: 200, body: 'read' } }) })).json()) as { id: string };
  expect((await fetch(`${base}/${created.id}/activate`, { method: 'POST', headers: auth })).status).toBe(200);
}, 40_000);
afterAll(async () => {
  child.kill('SIGTERM');
  await child.exited;
});

interface Exchange {
  /** Everything the server sent, as Latin-1 text. */
  text: string;
  status: number;
  headers: Map<string, string>;
  body: string;
  /** Whether the server closed the connection. */
  closed: boolean;
}

/** Writes `request` and reads until the server closes or one response with a Content-Length body is complete. */
async function raw(port: number, request: string): Promise<Exchange> {
  const { promise, resolve } = Promise.withResolvers<boolean>();
  let text = '';
  const socket = await Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: {
      data: (_s, chunk) => {
        text += Buffer.from(chunk).toString('latin1');
        const head = text.indexOf('\r\n\r\n');
        const length = head === -1 ? undefined : /\r\ncontent-length: (\d+)/i.exec(text.slice(0, head))?.[1];
        if (length !== undefined && text.length >= head + 4 + Number(length)) resolve(false);
      },
      close: () => resolve(true),
      error: () => resolve(true),
    },
  });
  socket.write(request);
  const closed = await Promise.race([promise, Bun.sleep(10_000).then(() => false)]);
  socket.end();
  const head = text.indexOf('\r\n\r\n');
  const lines = text.slice(0, head === -1 ? text.length : head).split('\r\n');
  const headers = new Map(lines.slice(1).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { text, status: Number(lines[0]?.split(' ')[1] ?? 0), headers, body: head === -1 ? '' : text.slice(head + 4), closed };
}

/** A GET whose request target (path and query) is exactly `length` characters. */
const targetOf = (path: string, length: number) => `${path}?pad=${'a'.repeat(length - path.length - 5)}`;
const get = (target: string, headers = '') => `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`;

const expectUriTooLong = (r: Exchange, limit: number, oid?: string) => {
  expect(r.status).toBe(414);
  expect(r.headers.get('content-type')).toBe('application/problem+json');
  const sent = r.headers.get('x-svc-oid')!;
  if (oid) expect(sent).toBe(oid);
  else expect(sent).toMatch(/^[0-9a-f-]{36}$/);
  expect(JSON.parse(r.body)).toEqual({ type: 'about:blank', title: 'URI too long', status: 414, code: 'URI_TOO_LONG', detail: `The request target (path and query) is over ${limit} characters`, oid: sent });
};

describe('a request target over the origin\'s limit → 414 problem+json with x-svc-oid', () => {
  test(`runtime: over ${RUNTIME_TARGET_LIMIT} characters, before the credential and for any method; at the limit the request goes on`, async () => {
    const over = targetOf('/orders', RUNTIME_TARGET_LIMIT + 1);
    expectUriTooLong(await raw(ports.runtime, get(over, 'x-svc-oid: edge-runtime-1\r\n')), RUNTIME_TARGET_LIMIT, 'edge-runtime-1');
    expectUriTooLong(await raw(ports.runtime, `POST ${over} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`), RUNTIME_TARGET_LIMIT);
    expectUriTooLong(await raw(ports.runtime, get(targetOf('/healthz', RUNTIME_TARGET_LIMIT + 1))), RUNTIME_TARGET_LIMIT);
    // HTTP/1.0 without Host: Bun's URL is the bare target.
    expectUriTooLong(await raw(ports.runtime, `GET ${over} HTTP/1.0\r\n\r\n`), RUNTIME_TARGET_LIMIT);
    // At the limit: judged as any request (no credential → 401), the oid continued.
    const at = await raw(ports.runtime, get(targetOf('/orders', RUNTIME_TARGET_LIMIT), 'x-svc-oid: edge-runtime-2\r\n'));
    expect(at.status).toBe(401);
    expect(JSON.parse(at.body)).toMatchObject({ code: 'UNAUTHORIZED', oid: 'edge-runtime-2' });
    expect((await raw(ports.runtime, get(targetOf('/healthz', RUNTIME_TARGET_LIMIT)))).status).toBe(200);
  });

  test('runtime: a long Host header makes the URL long, not the request target', async () => {
    const r = await raw(ports.runtime, `GET /healthz HTTP/1.1\r\nHost: ${'h'.repeat(RUNTIME_TARGET_LIMIT + 10)}\r\n\r\n`);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-svc-oid')).toBeTruthy();
  });

  test(`control plane: over ${CONTROL_PLANE_TARGET_LIMIT} characters, before the credential; at the limit a list query is served`, async () => {
    const auth = `Authorization: Bearer ${ADMIN_KEY}\r\n`;
    expectUriTooLong(await raw(ports.control, get(targetOf('/api/v1/agents', CONTROL_PLANE_TARGET_LIMIT + 1), 'x-svc-oid: edge-control-1\r\n')), CONTROL_PLANE_TARGET_LIMIT, 'edge-control-1');
    expectUriTooLong(await raw(ports.control, get(targetOf('/api/v1/agents', CONTROL_PLANE_TARGET_LIMIT + 1), auth)), CONTROL_PLANE_TARGET_LIMIT);
    expectUriTooLong(await raw(ports.control, get(targetOf('/healthz', CONTROL_PLANE_TARGET_LIMIT + 1))), CONTROL_PLANE_TARGET_LIMIT);
    expectUriTooLong(await raw(ports.control, `GET ${targetOf('/api/v1/agents', CONTROL_PLANE_TARGET_LIMIT + 1)} HTTP/1.0\r\n\r\n`), CONTROL_PLANE_TARGET_LIMIT);
    const at = await raw(ports.control, get(targetOf('/api/v1/agents', CONTROL_PLANE_TARGET_LIMIT), `${auth}x-svc-oid: edge-control-2\r\n`));
    expect(at.status).toBe(200);
    expect(at.headers.get('x-svc-oid')).toBe('edge-control-2');
    expect(JSON.parse(at.body)).toMatchObject({ data: [] });
  });
});

describe('what Bun refuses before any handler runs gets its bare answer, on both origins', () => {
  const BARE_431 = 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n';
  const BARE_400 = 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n';
  const BARE_505 = 'HTTP/1.1 505 HTTP Version Not Supported\r\nConnection: close\r\n\r\n';
  const origins = [['control plane', 'control'], ['runtime', 'runtime']] as const;

  test.each(origins)('%s: a head over the limit → a bare 431, connection closed (no problem+json, no x-svc-oid)', async (_label, origin) => {
    const port = ports[origin];
    // The request line alone: one byte over the head limit...
    const line = get(targetOf('/x', HEAD_LIMIT));
    expect(line.length).toBeGreaterThan(HEAD_LIMIT);
    expect(await raw(port, line)).toMatchObject({ text: BARE_431, closed: true });
    // ...and a head of exactly the limit is taken (the 414 above is ours).
    const fits = get(targetOf('/x', HEAD_LIMIT - get('').length));
    expect(fits.length).toBe(HEAD_LIMIT);
    expect(await raw(port, fits)).toMatchObject({ status: 414 });
    // One header over the limit, with a short request line.
    expect(await raw(port, get('/healthz', `X-Big: ${'b'.repeat(HEAD_LIMIT)}\r\n`))).toMatchObject({ text: BARE_431, closed: true });
    // More than 198 header fields, however small (a count compiled into Bun, not set by the flag).
    const fields = (n: number) => Array.from({ length: n - 1 }, (_, i) => `X-F${i}: v\r\n`).join('');
    expect((await raw(port, get('/healthz', fields(198)))).status).toBe(200);
    expect(await raw(port, get('/healthz', fields(199)))).toMatchObject({ text: BARE_431, closed: true });
  });

  test.each(origins)('%s: bad framing, a bad head or version → a bare 400 or 505; an unknown method → the connection closed without a byte', async (_label, origin) => {
    const port = ports[origin];
    const post = (framing: string) => `POST ${BODY_PATHS[origin]} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Type: application/json\r\n${framing}`;
    expect(await raw(port, post('Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'))).toMatchObject({ text: BARE_400, closed: true });
    expect(await raw(port, post('Content-Length: two\r\n\r\n{}'))).toMatchObject({ text: BARE_400, closed: true });
    expect(await raw(port, post('Content-Length: 1\r\nContent-Length: 2\r\n\r\n{}'))).toMatchObject({ text: BARE_400, closed: true });
    expect(await raw(port, post('Transfer-Encoding: gzip\r\n\r\n{}'))).toMatchObject({ text: BARE_400, closed: true });
    expect(await raw(port, 'GET /healthz HTTP/1.1\r\n\r\n')).toMatchObject({ text: BARE_400, closed: true });
    expect(await raw(port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon\r\n\r\n')).toMatchObject({ text: BARE_400, closed: true });
    expect(await raw(port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\r\n folded\r\n\r\n')).toMatchObject({ text: BARE_400, closed: true });
    expect(await raw(port, 'GET /healthz HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n')).toMatchObject({ text: BARE_505, closed: true });
    expect(await raw(port, 'GET /healthz HTTP/1.1\nHost: 127.0.0.1\n\n')).toMatchObject({ text: BARE_505, closed: true });
    expect(await raw(port, 'FROB /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).toMatchObject({ text: '', closed: true });
    expect(await raw(port, 'get /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).toMatchObject({ text: '', closed: true });
  });

  test.each(origins)('%s: a chunked body whose framing breaks after the head → Bun\'s bare 400; the handler\'s read fails and its answer is never sent', async (_label, origin) => {
    // The head is fine, so the handler runs; with a credential both origins read the body, and Bun
    // closes the connection with its own 400 the moment it meets the bad chunk size.
    const chunked = `POST ${BODY_PATHS[origin]} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    // Well framed, the same request is answered by the handler.
    expect((await raw(ports[origin], `${chunked}${origin === 'control' ? '12\r\n{"name":"chunked"}' : '2\r\n{}'}\r\n0\r\n\r\n`)).status).toBe(origin === 'control' ? 201 : 200);
    expect(await raw(ports[origin], `${chunked}zz\r\n{}\r\n0\r\n\r\n`)).toMatchObject({ text: BARE_400, closed: true });
  });
});
