// Black-box harness: the whole server (`src/main.ts`, as `npm start` runs it) in a child process,
// spoken to only over HTTP. Not a test file: the *.test.ts files of this folder use it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ADMIN = 'sk-blackbox-admin-key-0123456789abcdefgh';

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface Server {
  /** Control-plane origin, e.g. http://127.0.0.1:1234 (paths under /api/v1). */
  cp: string;
  runtime: string;
  /** Everything the server wrote on stderr so far. */
  log: () => string;
  /** Everything it wrote on stdout so far. */
  output: () => string;
  alive: () => boolean;
  stop: () => void;
  /** A control-plane call (path under /api/v1), JSON body, bearer key (default: the admin). */
  api: (method: string, path: string, body?: unknown, key?: string | null, headers?: Record<string, string>) => Promise<Reply>;
  /** A runtime call. */
  invoke: (method: string, path: string, body?: unknown, key?: string | null, headers?: Record<string, string>) => Promise<Reply>;
  /** A principal with these roles (and workspaces) and an API key for it. */
  user: (roles: string[], workspaceIds?: string[]) => Promise<{ id: string; key: string }>;
  serviceAccount: (roles: string[], workspaceIds?: string[], extra?: Record<string, unknown>) => Promise<{ id: string; key: string }>;
}

const read = async (response: Response): Promise<Reply> => {
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, body, text };
};

/**
 * The server as `npm start` runs it, or with BLACKBOX_SERVER=deno as `npm run start:deno` does
 * (`npm run test:deno` runs this folder's suites so: the portable tests, under Deno).
 */
function serverCommand(root: string): string[] {
  if (process.env.BLACKBOX_SERVER !== 'deno') return [process.execPath, '--max-http-header-size=131072', 'src/main.ts'];
  const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  return ['sh', '-c', scripts['start:deno']!];
}

export async function startServer(env: Record<string, string> = {}): Promise<Server> {
  const data = mkdtempSync(join(tmpdir(), 'blackbox-data-'));
  const root = join(import.meta.dir, '..', '..');
  const child = Bun.spawn(serverCommand(root), {
    cwd: root,
    env: { PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`, ...(process.env.HOME ? { HOME: process.env.HOME } : {}), PORT: '0', RUNTIME_PORT: '0', DATA_DIR: data, DATABASE_URL: `sqlite:${join(data, 'p.db')}`, PLATFORM_ADMIN_API_KEY: ADMIN, COMPONENT_ISOLATION: 'worker', LOG_LEVEL: 'info', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let out = '';
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout as ReadableStream<Uint8Array>) out += decoder.decode(chunk, { stream: true });
  })().catch(() => {});
  let exited = false;
  void child.exited.then(() => (exited = true));
  const stop = () => {
    child.kill('SIGKILL');
    void child.exited.then(() => rmSync(data, { recursive: true, force: true }));
  };
  process.once('exit', () => child.kill('SIGKILL'));
  let text = '';
  const origins = new Map<string, string>();
  const reader = (child.stderr as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const deadline = Date.now() + 30_000;
  while (origins.size < 2 && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    for (const m of text.matchAll(/(control plane|endpoint runtime) listening on ([^\s"]+)"/g)) origins.set(m[1]!, m[2]!);
  }
  void (async () => {
    for (;;) {
      const r = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (r.done) break;
      text += decoder.decode(r.value, { stream: true });
    }
  })();
  if (origins.size < 2) {
    stop();
    throw new Error(`the server did not start:\n${text}`);
  }
  const local = (origin: string) => `http://127.0.0.1:${new URL(origin).port}`;
  const cp = local(origins.get('control plane')!);
  const runtime = local(origins.get('endpoint runtime')!);
  const call = (origin: string) => async (method: string, path: string, body?: unknown, key: string | null = ADMIN, headers: Record<string, string> = {}) => {
    const h: Record<string, string> = { ...headers };
    if (key !== null) h.authorization = `Bearer ${key}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    return read(await fetch(`${origin}${path}`, { method, headers: h, body: payload, signal: AbortSignal.timeout(25_000) }));
  };
  const api = (method: string, path: string, body?: unknown, key?: string | null, headers?: Record<string, string>) => call(cp)(method, `/api/v1${path}`, body, key, headers);
  const keyFor = async (principalId: string) => {
    const k = await api('POST', '/api-keys', { principalId, name: 'k' });
    if (k.status !== 201) throw new Error(`api key: ${k.status} ${k.text}`);
    return k.body.key as string;
  };
  let n = 0;
  return {
    cp,
    runtime,
    log: () => text,
    output: () => out,
    alive: () => !exited,
    stop,
    api,
    invoke: call(runtime),
    async user(roles, workspaceIds) {
      n += 1;
      const u = await api('POST', '/users', { name: `u${n}`, email: `u${n}-${crypto.randomUUID()}@example.com`, roles, platformAccess: true, ...(workspaceIds ? { workspaceIds } : {}) });
      if (u.status !== 201) throw new Error(`user: ${u.status} ${u.text}`);
      return { id: u.body.id, key: await keyFor(u.body.id) };
    },
    async serviceAccount(roles, workspaceIds, extra = {}) {
      n += 1;
      const s = await api('POST', '/service-accounts', { name: `sa${n}`, roles, platformAccess: true, ...(workspaceIds ? { workspaceIds } : {}), ...extra });
      if (s.status !== 201) throw new Error(`service account: ${s.status} ${s.text}`);
      return { id: s.body.id, key: await keyFor(s.body.id) };
    },
  };
}

/** Sends raw bytes to an origin and returns the first response (or, `whole`, all that came back before the connection closed or `ms` passed). */
export function rawRequest(origin: string, bytes: string | Uint8Array, ms = 5000, whole = false): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    const timer = setTimeout(done, ms);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // One full response is enough (unless `whole`): a head, then a body of the length it declares.
      if (whole) return;
      const all = Buffer.concat(chunks).toString('latin1');
      const end = all.indexOf('\r\n\r\n');
      if (end >= 0) {
        const length = /\r\ncontent-length: *(\d+)/i.exec(all.slice(0, end));
        if (length && all.length >= end + 4 + Number(length[1])) done();
      }
    });
    socket.on('end', done);
    socket.on('error', done);
    socket.write(bytes);
  });
}

/** The status code of a raw HTTP response, or 0 for none. */
/**
 * The server runs under Deno (BLACKBOX_SERVER=deno). Deno's HTTP server has limits of its own that
 * Bun's flag raises: it refuses a request target over 65,535 characters, raw non-ASCII bytes in
 * a target, and a request head over about 64 KiB, before the platform sees the request (400, or
 * the connection closed: status 0 here). README "Deno" says so.
 */
export const ON_DENO = process.env.BLACKBOX_SERVER === 'deno';

/** What Deno's own server answers a request it refuses before the platform: 400, or a closed connection. */
export const refusedByDeno = (raw: string) => [0, 400, 431].includes(statusOf(raw));

export const statusOf = (raw: string): number => Number(/^HTTP\/1\.[01] (\d{3})/.exec(raw)?.[1] ?? 0);

/** Asserts the shape every refusal has: problem+json with the oid header echoed in the body. */
export function isProblem(reply: Reply, status: number, code?: string): boolean {
  const oid = reply.headers.get('x-svc-oid');
  return (
    reply.status === status &&
    (reply.headers.get('content-type') ?? '').startsWith('application/problem+json') &&
    !!oid &&
    reply.body?.oid === oid &&
    reply.body?.status === status &&
    (code === undefined || reply.body?.code === code)
  );
}
