// Fuzzing the control plane in-process (fast-check, fixed seed): whatever a client sends, it must
// see the platform's conventions (DESIGN §3, §8) and bad input must change nothing (DESIGN §4).
//
//   - no response is 5xx, except a documented 503 (SERVICE_UNAVAILABLE);
//   - every response carries `x-svc-oid` (an incoming valid one continued, else a new valid one);
//   - every error is `application/problem+json` with a numeric `status` equal to the HTTP status,
//     a string `code` and the same `oid` as the header; a success is JSON;
//   - a rejected request changes no stored row (the whole database is fingerprinted before and
//     after), leaves the resource it addressed byte-for-byte equal and adds nothing to any list;
//   - an accepted write reads back as it was answered.
//
// Generated: bodies (random JSON values, mutations of valid bodies with `__proto__`/`constructor`
// keys, huge numbers, NUL, lone surrogates and deep nesting, random bytes, wrong/missing content
// types, chunked transport) on every POST/PATCH/PUT route; query strings (bracket-style and JSON
// filter/sort/fields/joins/groupBy/cast/cte/limit/offset/…) on every list; path segments on
// every `/{id}` route (non-uuids, uuids of nothing, ids of other kinds, encoded slashes, very
// long); methods a path does not have; Authorization headers (API-key-, JWT- and garbage-shaped,
// and keys in the URL); random guard schemas, json-validator schemas and component code.
//
// What these properties found (all fixed) is kept as plain regression tests at the end, each one
// minimal request, so that the properties stay generic.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import qs from 'qs';
import { SignJWT } from 'jose';
import { sql } from 'drizzle-orm';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { loadConfig } from '../../src/core/config.ts';
import { CONTROL_PLANE_TARGET_LIMIT } from '../../src/core/http/request-target.ts';
import { createPlatform, type Platform } from '../../src/index.ts';
import type { Logger } from '../../src/core/log.ts';
import { createExecutor } from '../../runtime/executor/index.ts';
import type { Executor } from '../../runtime/executor/contract/types.ts';
import { ADMIN_KEY } from '../helpers/platform.ts';
import { jsonNesting } from '../helpers/json-model.ts';
import { tempDir } from '../helpers/temp.ts';

// ---------------------------------------------------------------------------------------------
// Budget: about 35–45 s on a 2-core machine in total (≈ 30 000 requests when every property runs
// to the end). Deterministic: one fixed seed for every property. Seed 7 was picked because at
// these run counts every bug class listed at the end shows up in a property too (other seeds find
// them as well, with more runs). FUZZ_SEED=<n> explores other inputs by hand.
const SEED = Number(process.env.FUZZ_SEED ?? 7);
const RUNS = {
  bodiesPerTarget: 300,
  deepNesting: 120,
  queriesPerList: 500,
  rawQueries: 500,
  paths: 1200,
  methods: 200,
  schemas: 250,
  code: 300,
  auth: 800,
};
const fcOptions = (numRuns: number) => ({ seed: SEED, numRuns, endOnFailure: false, interruptAfterTimeLimit: 55_000 });

const JWT_SECRET = 'fuzz-jwt-secret-0123456789abcdefghijklmnop';
const OID = /^[A-Za-z0-9._:-]{1,128}$/;
const API = '/api/v1';

// ---------------------------------------------------------------------------------------------
// The platform, built as test/helpers/platform.ts builds it, with a logger that keeps server-side
// errors so that a failing property can show the exception behind a 5xx.

let p: Platform & { executor: Executor };
const serverErrors: string[] = [];
const capturingLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error(message, error) {
    serverErrors.push(`${message}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  },
  access() {},
  child: () => capturingLogger,
  within: (_, fn) => fn(),
  outside: (fn) => fn(),
};

async function startPlatform() {
  const dataDir = tempDir('platform-fuzz');
  const config = loadConfig({
    DATABASE_URL: 'sqlite::memory:',
    PLATFORM_ADMIN_API_KEY: ADMIN_KEY,
    DATA_DIR: dataDir,
    PORT: '0',
    RUNTIME_PORT: '0',
    COMPONENT_ISOLATION: 'worker',
    JWT_SECRET,
  });
  const executor = await createExecutor({ isolation: 'worker', log: () => {} });
  const platform = await createPlatform(config, capturingLogger, { executor });
  return Object.assign(platform, { executor });
}

// ---------------------------------------------------------------------------------------------
// Requests and what a client sees

interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Raw bytes; `chunked` sends them as a stream without a length. */
  body?: { bytes: Uint8Array; chunked?: boolean };
}

interface Seen {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
  /** Server-side errors logged while this request was handled. */
  logged: string[];
}

const encoder = new TextEncoder();
const utf8 = (text: string) => encoder.encode(text);

function preview(text: string, max = 400): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

function describeRequest(req: Req): string {
  const lines = [`${req.method} ${preview(req.path, 300)}`];
  for (const [name, value] of Object.entries(req.headers)) lines.push(`${name}: ${preview(value, 200)}`);
  if (req.body) {
    const text = new TextDecoder('utf-8', { fatal: false }).decode(req.body.bytes);
    lines.push(`body (${req.body.bytes.length} bytes${req.body.chunked ? ', chunked' : ''}): ${preview(JSON.stringify(text))}`);
  }
  return lines.join('\n  ');
}

function describeSeen(seen: Seen): string {
  const logged = seen.logged.length > 0 ? `\n  server logged: ${preview(seen.logged.join('\n'), 1500)}` : '';
  return `→ ${seen.status} ${seen.headers.get('content-type') ?? '(no content-type)'} ${preview(seen.text)}${logged}`;
}

/** Every request sent, by status, and how many of them were the checks' own reads: the run's summary. */
const statusCounts = new Map<number, number>();
let checkReads = 0;

async function send(req: Req): Promise<Seen> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) headers.set(name, value);
  let body: ReadableStream<Uint8Array> | Uint8Array | undefined;
  if (req.body) {
    const bytes = req.body.bytes;
    body = req.body.chunked
      ? new ReadableStream<Uint8Array>({
          start(controller) {
            // Two chunks, so that a chunk boundary can fall inside a UTF-8 sequence.
            const cut = Math.floor(bytes.length / 2);
            controller.enqueue(bytes.slice(0, cut));
            controller.enqueue(bytes.slice(cut));
            controller.close();
          },
        })
      : bytes;
  }
  const before = serverErrors.length;
  const response = await p.app.handle(new Request(`http://localhost${req.path}`, { method: req.method, headers, body }));
  const text = await response.text();
  statusCounts.set(response.status, (statusCounts.get(response.status) ?? 0) + 1);
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json, logged: serverErrors.slice(before) };
}

const auth = (key: string | null = ADMIN_KEY): Record<string, string> => (key === null ? {} : { authorization: `Bearer ${key}` });

/** A JSON request as a well-behaved client sends it. */
function jsonReq(method: string, path: string, body?: unknown, key: string | null = ADMIN_KEY): Req {
  const req: Req = { method, path, headers: auth(key) };
  if (body !== undefined) {
    req.headers['content-type'] = 'application/json';
    req.body = { bytes: utf8(JSON.stringify(body)) };
  }
  return req;
}

async function call<T = any>(method: string, path: string, body?: unknown, key: string | null = ADMIN_KEY): Promise<{ status: number; body: T; text: string }> {
  checkReads++;
  const seen = await send(jsonReq(method, path, body, key));
  return { status: seen.status, body: seen.json as T, text: seen.text };
}

async function must<T = any>(method: string, path: string, body?: unknown, key: string | null = ADMIN_KEY): Promise<T> {
  const r = await call<T>(method, path, body, key);
  if (r.status >= 300) throw new Error(`fixture ${method} ${path} → ${r.status} ${r.text}`);
  return r.body;
}

class Violation extends Error {
  override name = 'Violation';
}

function fail(req: Req, seen: Seen, what: string): never {
  throw new Violation(`${what}\n  ${describeRequest(req)}\n  ${describeSeen(seen)}`);
}

const mediaType = (headers: Headers) => (headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();

/** What every response must look like (DESIGN §3 and §8). */
function checkConventions(req: Req, seen: Seen): void {
  const oid = seen.headers.get('x-svc-oid');
  if (!oid) fail(req, seen, 'no x-svc-oid header');
  if (!OID.test(oid)) fail(req, seen, `x-svc-oid ${JSON.stringify(oid)} is not 1–128 characters of [A-Za-z0-9._:-]`);
  // Headers drop leading and trailing whitespace from a value.
  const incoming = req.headers['x-svc-oid']?.replace(/^[\t ]+|[\t ]+$/g, '');
  if (incoming !== undefined) {
    const valid = OID.test(incoming);
    if (valid && oid !== incoming) fail(req, seen, 'a valid incoming x-svc-oid was not continued');
    if (!valid && oid === incoming) fail(req, seen, 'an invalid incoming x-svc-oid was echoed');
  }
  const body = seen.json as Record<string, unknown> | undefined;
  if (seen.status >= 500 && !(seen.status === 503 && body?.code === 'SERVICE_UNAVAILABLE')) fail(req, seen, `a ${seen.status} response`);
  if (req.method === 'HEAD') {
    // A body is dropped on the wire (in-process it may still be there); the headers must be right.
    if (seen.status >= 400 && mediaType(seen.headers) !== 'application/problem+json') fail(req, seen, 'an error that is not application/problem+json');
  } else if (seen.status >= 400) {
    if (mediaType(seen.headers) !== 'application/problem+json') fail(req, seen, 'an error that is not application/problem+json');
    if (body === null || typeof body !== 'object' || Array.isArray(body)) fail(req, seen, 'an error whose body is not a JSON object');
    if (body.status !== seen.status) fail(req, seen, `problem.status ${JSON.stringify(body.status)} differs from the HTTP status`);
    if (typeof body.code !== 'string' || body.code === '') fail(req, seen, 'a problem without a string code');
    if (body.oid !== oid) fail(req, seen, 'problem.oid differs from x-svc-oid');
    if ((typeof body.detail === 'string' && /\n\s+at /.test(body.detail)) || 'stack' in body) fail(req, seen, 'a stack trace in a problem body');
    const codes: Record<number, string[]> = { 401: ['UNAUTHORIZED'], 413: ['PAYLOAD_TOO_LARGE'], 415: ['UNSUPPORTED_MEDIA_TYPE'], 400: ['BAD_REQUEST', 'MALFORMED_JSON', 'INVALID_QUERY'] };
    if (codes[seen.status] && !codes[seen.status]!.includes(body.code)) fail(req, seen, `a ${seen.status} with code ${body.code}`);
    if (body.code === 'VERSION_CONFLICT' && (seen.status !== 409 || !Number.isInteger(body.currentVersion))) fail(req, seen, 'VERSION_CONFLICT without 409 and an integer currentVersion (DESIGN §3)');
    if (body.errors !== undefined) {
      if (!Array.isArray(body.errors)) fail(req, seen, 'problem.errors is not an array');
      for (const e of body.errors as { pointer?: unknown; message?: unknown }[]) {
        if (typeof e?.pointer !== 'string' || (e.pointer !== '' && !e.pointer.startsWith('/')) || typeof e.message !== 'string') fail(req, seen, `a violation that is not {pointer, message}: ${JSON.stringify(e)}`);
      }
    }
    if (seen.status === 422 && (!Array.isArray(body.errors) || body.errors.length === 0)) fail(req, seen, 'a 422 that lists no violation (DESIGN §3)');
  } else if (seen.status !== 204) {
    if (mediaType(seen.headers) !== 'application/json') fail(req, seen, 'a success that is not application/json');
    if (seen.json === undefined) fail(req, seen, 'a success whose body is not JSON');
  } else if (seen.text !== '') {
    fail(req, seen, 'a 204 with a body');
  }
}

// ---------------------------------------------------------------------------------------------
// The database, fingerprinted: a rejected request must not change any of it.

const FINGERPRINT = [
  'SELECT * FROM settings ORDER BY key',
  'SELECT * FROM workspaces ORDER BY id',
  'SELECT * FROM principals ORDER BY id',
  'SELECT * FROM memberships ORDER BY principal_id, workspace_id',
  'SELECT * FROM groups ORDER BY id',
  'SELECT * FROM group_members ORDER BY group_id, principal_id',
  // last_used_at is written in batches, whenever.
  'SELECT id, principal_id, name, key_hash, expires_at, revoked_at, created_at FROM api_keys ORDER BY id',
  'SELECT * FROM agents ORDER BY id',
  'SELECT * FROM runs ORDER BY id',
  'SELECT * FROM events ORDER BY id',
  'SELECT * FROM components ORDER BY id',
  'SELECT * FROM component_revisions ORDER BY id',
  // a build started by an accepted request may finish at any time.
  'SELECT id, component_id, revision_id FROM deployments ORDER BY id',
  'SELECT * FROM endpoints ORDER BY id',
  'SELECT * FROM index_state',
  "SELECT count(*) AS changes FROM audit WHERE kind = 'change'",
];

async function fingerprint(): Promise<string[]> {
  const out: string[] = [];
  for (const query of FINGERPRINT) out.push(JSON.stringify(await p.db.all(sql.raw(query))));
  return out;
}

function checkUnchanged(req: Req, seen: Seen, before: string[], after: string[]): void {
  const i = before.findIndex((part, index) => part !== after[index]);
  if (i !== -1) fail(req, seen, `a rejected request changed the database (${FINGERPRINT[i]}):\n  before ${preview(before[i]!, 600)}\n  after  ${preview(after[i]!, 600)}`);
}

// ---------------------------------------------------------------------------------------------
// Fixtures

const F = {
  workspaceId: '',
  agentId: '',
  runAgentId: '',
  runId: '',
  componentId: '',
  revisionId: '',
  endpointId: '',
  activeEndpointId: '',
  validatorId: '',
  digest: '',
  groupId: '',
  userId: '',
  serviceAccountId: '',
  apiKeyId: '',
  adminId: '',
  keys: {} as Record<'agentAdmin' | 'agentUser' | 'componentAdmin' | 'endpointAdmin' | 'plain' | 'noAccess' | 'outsider', string>,
};

/** Every fixture id, for generators that want existing things (of the right kind or not). */
const fixtureIds = (): string[] =>
  [F.workspaceId, F.agentId, F.runId, F.componentId, F.revisionId, F.validatorId, F.endpointId, F.activeEndpointId, F.userId, F.serviceAccountId, F.apiKeyId, F.adminId, F.groupId].filter((id) => id !== '');

async function principal(roles: string[], extra: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const n = crypto.randomUUID().slice(0, 8);
  const user = await must('POST', `${API}/users`, { name: `u${n}`, email: `u${n}@example.com`, roles, platformAccess: true, ...extra });
  const key = await must('POST', `${API}/api-keys`, { principalId: user.id, name: 'k' });
  return { id: user.id, key: key.key };
}

// ---------------------------------------------------------------------------------------------
// JSON as text: objects are entry lists, so that `__proto__` stays an own key and keys may repeat;
// numbers are raw text, so that 1e400 and 123456789012345678901234567890 reach the server as sent.

type J = { t: 'raw'; text: string } | { t: 'arr'; items: J[] } | { t: 'obj'; entries: [string, J][] };

const raw = (text: string): J => ({ t: 'raw', text });
function emit(j: J): string {
  if (j.t === 'raw') return j.text;
  if (j.t === 'arr') return `[${j.items.map(emit).join(',')}]`;
  return `{${j.entries.map(([k, v]) => `${JSON.stringify(k)}:${emit(v)}`).join(',')}}`;
}
function fromValue(value: unknown): J {
  if (Array.isArray(value)) return { t: 'arr', items: value.map(fromValue) };
  if (value !== null && typeof value === 'object') return { t: 'obj', entries: Object.entries(value).map(([k, v]) => [k, fromValue(v)]) };
  return raw(JSON.stringify(value) ?? 'null');
}

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__', 'then', 'toJSON', 'length'];
const FIELD_KEYS = [
  'name', 'desc', 'status', 'version', 'config', 'metadata', 'policy', 'model', 'plugins', 'kind', 'id', 'workspaceId', 'ownerId',
  'ownerType', 'serviceAccountUserId', 'roles', 'email', 'platformAccess', 'active', 'workspaceIds', 'executionPolicy', 'mode',
  'currentUser', 'input', 'parentRunId', 'elements', 'code', 'visible', 'revisionId', 'schema', 'source', 'results', 'expiresAt',
  'principalId', 'ttlSeconds', 'staticResponse', 'guard', 'type', 'inputs', 'timeoutMs', 'path', 'method', 'memberIds', 'maxTicks',
  'toolPermissions', 'saved', 'componentId', 'componentDigest', 'body', 'headers',
];

const arbNumberText = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.constantFrom(
    '1e400', '-1e400', '1e308', '-0', '0.0', '9007199254740993', '-9007199254740993', '123456789012345678901234567890',
    '1E2', '5e-324', '1e-400', '0', '-1', '1.5', '604801', '1000', '65', '16385', '4294967296', '2147483648',
  ),
);

const arbString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 16 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 16 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '/fuzz/b', '/fuzz/a/:x', '/fuzz/:id/b', '/fuzz//a', '/fuzz/:id/:id', '/:a', '/', 'sha256:00', 'EXECUTION_ACCOUNT', 'BUSINESS_USER',
      '', ' ', '\u0000', 'a\u0000b', '\ud800', '\udfff', 'x\ud83d', '\udc00y', '\u202e', '\ufeff', '\uffff', '🙂', 'e\u0301',
      'ACTIVE', 'PAUSED', 'DISABLED', 'USER', 'GROUP', 'SERVICE_ACCOUNT', 'scripted', 'tools', 'package', 'CALLER',
      'lowcode', 'node', 'json-validator', 'GET', '/fz/x', '2099-01-01', '2099-01-01T00:00:00Z', '1970-01-01', 'sk-',
      '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', "'; DROP TABLE agents; --", '%', '\\',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(300), 'é'.repeat(5000), 'x'.repeat(17 * 1024)) },
  // Ids of things that exist (read when generating, after the fixtures are made), and of nothing.
  { weight: 2, arbitrary: fc.nat().map((i) => { const ids = fixtureIds(); return ids[i % ids.length]!; }) },
  { weight: 1, arbitrary: fc.uuid() },
);

const arbKey = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PROTO_KEYS) },
  { weight: 3, arbitrary: fc.constantFrom(...FIELD_KEYS) },
  { weight: 2, arbitrary: arbString },
  { weight: 1, arbitrary: fc.constantFrom('__x', '__backend', '', '~', '/', 'a/b', '0', 'a.b', 'a\nb') },
);

const arbScalar: fc.Arbitrary<J> = fc.oneof(
  fc.constantFrom(raw('null'), raw('true'), raw('false')),
  arbNumberText.map(raw),
  arbString.map((s) => raw(JSON.stringify(s))),
);

const { json: arbJ } = fc.letrec<{ json: J }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    arbScalar,
    fc.array(tie('json'), { maxLength: 4 }).map((items): J => ({ t: 'arr', items })),
    fc.array(fc.tuple(arbKey, tie('json')), { maxLength: 5 }).map((entries): J => ({ t: 'obj', entries })),
  ),
}));

/** A mutation of a valid body: replace, delete, add or duplicate at a path chosen by `steps`. */
interface Mutation {
  steps: number[];
  op: 'replace' | 'delete' | 'add' | 'duplicate';
  key: string;
  value: J;
}
const arbMutation: fc.Arbitrary<Mutation> = fc.record({
  steps: fc.array(fc.nat(), { maxLength: 5 }),
  op: fc.constantFrom('replace', 'delete', 'add', 'duplicate'),
  key: arbKey,
  value: arbJ,
});

function mutate(j: J, m: Mutation, depth = 0): J {
  const children = j.t === 'arr' ? j.items.length : j.t === 'obj' ? j.entries.length : 0;
  const step = m.steps[depth];
  if (step !== undefined && children > 0) {
    const i = step % children;
    if (j.t === 'arr') return { t: 'arr', items: j.items.map((item, k) => (k === i ? mutate(item, m, depth + 1) : item)) };
    if (j.t === 'obj') return { t: 'obj', entries: j.entries.map(([k, v], n): [string, J] => [k, n === i ? mutate(v, m, depth + 1) : v]) };
  }
  switch (m.op) {
    case 'replace':
      return m.value;
    case 'delete':
      if (j.t === 'obj' && j.entries.length > 0) return { t: 'obj', entries: j.entries.filter((_, n) => n !== (step ?? 0) % j.entries.length) };
      if (j.t === 'arr' && j.items.length > 0) return { t: 'arr', items: j.items.slice(1) };
      return m.value;
    case 'add':
      if (j.t === 'obj') return { t: 'obj', entries: [...j.entries, [m.key, m.value]] };
      if (j.t === 'arr') return { t: 'arr', items: [...j.items, m.value] };
      return m.value;
    case 'duplicate': {
      // A repeated key: JSON.parse keeps the last one.
      if (j.t === 'obj' && j.entries.length > 0) {
        const [key] = j.entries[(step ?? 0) % j.entries.length]!;
        return { t: 'obj', entries: [...j.entries, [key, m.value]] };
      }
      return m.value;
    }
  }
}

/** Nests a value `depth` levels deep in arrays and objects (depth 1 = the value itself in one container). */
function nest(depth: number, style: 'arr' | 'obj' | 'mixed', leaf = '1'): string {
  let text = leaf;
  for (let i = 0; i < depth; i++) {
    const useArray = style === 'arr' || (style === 'mixed' && i % 2 === 0);
    text = useArray ? `[${text}]` : `{"k":${text}}`;
  }
  return text;
}

// Bodies as a client may send them.

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/merge-patch+json', 'application/problem+json', 'application/json;charset=utf-16'];
const OTHER_TYPES = [
  null, 'text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x',
  'application/octet-stream', 'text/json', '*/*', '', 'application/jsonx', ';;;', 'application/', 'json',
];

interface Body {
  bytes: Uint8Array;
  contentType: string | null;
  chunked: boolean;
}

/** Strings that storage and encodings get wrong: lone surrogates, NUL, BOM, RTL override, emoji. */
const HOSTILE_STRINGS = ['\ud800', '\udfff', 'a\udc00', '\ud83d', '\u0000', 'a\u0000', '\ufeff', '\u202e', '\uffff', '🙂', 'e\u0301', '\u2028'];
const arbHostileMutation: fc.Arbitrary<Mutation> = fc.record({
  steps: fc.array(fc.nat(), { maxLength: 5 }),
  op: fc.constant('replace' as const),
  key: fc.constant(''),
  value: fc.constantFrom(...HOSTILE_STRINGS).map((text) => raw(JSON.stringify(text))),
});

function arbBody(base: J, wraps: ((inner: string) => string)[]): fc.Arbitrary<Body | null> {
  const mutated = fc.array(fc.oneof({ weight: 4, arbitrary: arbMutation }, { weight: 1, arbitrary: arbHostileMutation }), { minLength: 0, maxLength: 3 }).map((ms) => emit(ms.reduce(mutate, base)));
  const anyJson = arbJ.map(emit);
  const deep = fc.record({ depth: fc.integer({ min: 100, max: 134 }), style: fc.constantFrom('arr' as const, 'obj' as const, 'mixed' as const), wrap: fc.constantFrom(...wraps) })
    .map(({ depth, style, wrap }) => wrap(nest(depth, style)));
  const truncated = fc.tuple(mutated, fc.nat()).map(([text, n]) => text.slice(0, n % Math.max(1, text.length)));
  const jsonText = fc.oneof(
    { weight: 6, arbitrary: mutated },
    { weight: 3, arbitrary: anyJson },
    { weight: 1, arbitrary: deep },
    { weight: 1, arbitrary: truncated },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', '\ufeff{}', '{}garbage', '{"a":1}{"b":2}', 'nul', 'NaN', 'Infinity', "{'a':1}", '{"a":1,}', '[1,]', '"\\ud800"', '{"a":"\\u0000"}', '{"\\u0000":1}') },
  );
  const textBody = fc.record({
    text: jsonText,
    contentType: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...JSON_TYPES) }, { weight: 1, arbitrary: fc.constantFrom(...OTHER_TYPES) }),
    chunked: fc.boolean(),
  }).map(({ text, contentType, chunked }): Body => ({ bytes: utf8(text), contentType, chunked }));
  const byteBody = fc.record({
    bytes: fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.string({ unit: 'binary', maxLength: 64 }).map(utf8), fc.constantFrom(new Uint8Array([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]), new Uint8Array([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]), utf8('{"a":"\u00e9"}').slice(0, 7))),
    contentType: fc.constantFrom(...JSON_TYPES, ...OTHER_TYPES),
    chunked: fc.boolean(),
  });
  // Just over and just under the 4 MiB control-plane limit (an unknown top-level key, so that
  // nothing that big is ever stored and slows every later fingerprint down).
  const huge = fc.constantFrom(4 * 1024 * 1024 + 1, 4 * 1024 * 1024 - 64).map((size): Body => ({ bytes: utf8(`{"zz":"${'x'.repeat(size - 10)}"}`), contentType: 'application/json', chunked: false }));
  return fc.oneof(
    { weight: 16, arbitrary: textBody },
    { weight: 3, arbitrary: byteBody },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.oneof({ weight: 20, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: huge }) },
  );
}

/** Incoming operation ids: valid ones are continued, others replaced. */
const arbOid = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/),
  fc.string({ unit: 'grapheme-ascii', maxLength: 140 }).map((s) => s.replace(/[\r\n]/g, '')),
  fc.constantFrom('trace:fuzz-1', 'bad oid', 'x'.repeat(128), 'x'.repeat(129), '', ' ', 'a/b', 'é', '\u00ff', '-', '..'),
);

/** If-Match values: the current version's ETag, others, and junk. */
const arbIfMatch = fc.oneof(
  fc.nat(5).map((n) => `"${n}"`),
  fc.constantFrom('*', 'W/"0"', '"0", "1"', '0', '""', '', '"-1"', '"1e400"', '"9007199254740993"', '"0"x', 'W/', '"\u00ff"'),
  fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
);

function bodyReq(method: string, path: string, body: Body | null, key: string = ADMIN_KEY): Req {
  const req: Req = { method, path, headers: auth(key) };
  if (body) {
    if (body.contentType !== null) req.headers['content-type'] = body.contentType;
    req.body = { bytes: body.bytes, chunked: body.chunked };
  }
  return req;
}

// ---------------------------------------------------------------------------------------------
// Body targets: every POST/PATCH/PUT that takes a body.

interface BodyTarget {
  name: string;
  method: 'POST' | 'PATCH' | 'PUT';
  path: () => string;
  base: () => Record<string, unknown>;
  /** Where deep values go: each wraps a nested document into an otherwise valid body. */
  wraps: () => ((inner: string) => string)[];
  /** GET path of the resource a rejected request must leave byte-for-byte equal. */
  read?: () => string;
  /** GET path of a list whose `count` a rejected request must not change. */
  list?: () => string;
  /** GET path of what an accepted create made (compared with the 201 body). */
  created?: (id: string) => string;
  /** Fields of the answer that legitimately differ from a later read (shown once, …). */
  answerOnly?: string[];
  /** Who sends the requests (default: the bootstrap admin). */
  keys?: () => string[];
}

const top = (key: string) => (inner: string) => `{${JSON.stringify(key)}:${inner}}`;
const inside = (outer: Record<string, unknown>, key: string) => (inner: string) => {
  const head = emit(fromValue(outer));
  return `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}${JSON.stringify(key)}:${inner}}`;
};

const TARGETS: BodyTarget[] = [
  {
    name: 'POST /agents',
    method: 'POST',
    path: () => `${API}/agents`,
    base: () => ({
      name: 'fz-agent',
      desc: 'd',
      status: 'PAUSED',
      metadata: { a: 1, constructor: 'x' },
      config: { model: 'scripted', maxTicks: 10, plugins: [{ id: 'p1', name: 'P', kind: 'tools', componentId: 'c1' }] },
      policy: { toolPermissions: { search: 'full' }, maxTicks: 5 },
    }),
    wraps: () => [inside({ name: 'deep' }, 'metadata'), top('metadata'), top('name')],
    list: () => `${API}/agents`,
    created: (id) => `${API}/agents/${id}`,
    keys: () => [ADMIN_KEY, F.keys.agentAdmin, F.keys.agentUser, F.keys.outsider, F.keys.noAccess],
  },
  {
    name: 'PATCH /agents/{id}',
    method: 'PATCH',
    path: () => `${API}/agents/${F.agentId}`,
    base: () => ({
      desc: 'patched',
      ownerId: F.userId,
      ownerType: 'USER',
      serviceAccountUserId: F.serviceAccountId,
      metadata: { b: [1, 2], prototype: { x: 1 } },
      config: {
        model: 'scripted',
        reasoningEffort: 'high',
        memoryPolicy: { enabled: true, maxRecallEntries: 3, maxRecallChars: 128 },
        definition: { identity: 'i', responsibilities: ['r'], operatingPrinciples: [] },
        release: { versionLabel: 'v1', changeSummary: 'c' },
        automation: {
          defaultDeliveryMode: 'INBOX',
          approvalRouting: { mode: 'delegate', delegateUserIds: [F.userId] },
          notificationPolicy: { dedupeWindowSeconds: 604800, maxAttempts: 32, auditTrail: true },
        },
        pluginIds: [F.componentId],
        plugins: [
          {
            id: 't', name: 'T', kind: 'tools', componentId: F.componentId, componentVersion: 0, timeoutMs: 1000, resultMaxBytes: 512,
            componentToolset: { defaultConfig: { enabled: true }, tools: { search: { entrypoint: 'main', inputs: { a: 1 }, inputSchema: { type: 'object', additionalProperties: false, properties: { q: { type: 'string', description: 'q' } } } } } },
            approvalPolicy: { mode: 'conditional', safetyTier: 'write' },
          },
          {
            id: 'm', name: 'M', kind: 'mcp_server',
            mcpServer: { transport: 'sse', url: 'https://example.com/mcp', authMode: 'header', headers: [{ name: 'x-k', secretId: 's', prefix: 'Bearer ' }], manifestTtlMs: 1000 },
            mcpToolset: { defaultConfig: { enabled: false }, configs: { remote: { alias: 'r', mutationIntent: 'read' } } },
          },
          { id: 's', name: 'S', kind: 'skill', skill: { format: 'markdown', content: '# x', maxPromptChars: 256 } },
          { id: 'p', name: 'P', kind: 'package', package: { externalId: 'e', metadata: { license: 'MIT', websiteUrl: 'https://x.example' } } },
        ],
        maxActiveRootRuns: 32,
        childFailureMode: 'merge_partial',
      },
      policy: { defaultToolPermission: 'auto_review', toolPermissions: { constructor: 'full' }, maxChildRuns: 128 },
    }),
    wraps: () => [top('metadata'), inside({ desc: 'x' }, 'metadata'), top('config')],
    read: () => `${API}/agents/${F.agentId}`,
    keys: () => [ADMIN_KEY, F.keys.agentAdmin, F.keys.agentUser, F.keys.plain, F.keys.outsider],
  },
  {
    name: 'POST /agents/{id}/runs',
    method: 'POST',
    path: () => `${API}/agents/${F.runAgentId}/runs`,
    base: () => ({ input: { q: 'x', n: [1, { constructor: null }] } }),
    wraps: () => [top('input'), inside({ parentRunId: F.runId }, 'input')],
    created: (id) => `${API}/agents/runs/${id}`,
    keys: () => [ADMIN_KEY, F.keys.agentUser, F.keys.plain],
  },
  {
    name: 'POST /components',
    method: 'POST',
    path: () => `${API}/components`,
    base: () => ({ name: 'fz-comp', kind: 'lowcode', description: 'd', elements: [{ name: 'a', code: 'return input', visible: true }] }),
    wraps: () => [inside({ name: 'v', kind: 'json-validator' }, 'schema')],
    list: () => `${API}/components`,
    created: (id) => `${API}/components/${id}`,
    keys: () => [ADMIN_KEY, F.keys.componentAdmin, F.keys.endpointAdmin],
  },
  {
    name: 'PATCH /components/{id}',
    method: 'PATCH',
    path: () => `${API}/components/${F.componentId}`,
    base: () => ({ description: 'patched', elements: [{ name: 'a', code: 'return 2' }] }),
    wraps: () => [top('schema'), inside({ name: 'n' }, 'elements')],
    read: () => `${API}/components/${F.componentId}`,
  },
  {
    name: 'POST /components/{id}/deployments',
    method: 'POST',
    path: () => `${API}/components/${F.componentId}/deployments`,
    base: () => ({ revisionId: F.revisionId }),
    wraps: () => [top('revisionId')],
    list: () => `${API}/components/${F.componentId}/deployments`,
  },
  {
    name: 'POST /endpoints',
    method: 'POST',
    path: () => `${API}/endpoints`,
    base: () => ({
      name: 'fz-ep',
      method: 'POST',
      path: '/fz/:id',
      description: 'd',
      staticResponse: { status: 200, headers: { 'x-a': 'b' }, body: { ok: true } },
      inputs: { a: 1, __proto__x: 2 },
      guard: { type: 'inline', schema: { type: 'object', properties: { a: { type: 'string', maxLength: 5 } } } },
      timeoutMs: 1000,
    }),
    wraps: () => [inside({ name: 'd', method: 'GET', path: '/deep' }, 'inputs'), inside({ name: 'd', method: 'GET', path: '/deep2', staticResponse: { status: 200 } }, 'validationFailure')],
    list: () => `${API}/endpoints`,
    created: (id) => `${API}/endpoints/${id}`,
    keys: () => [ADMIN_KEY, F.keys.endpointAdmin, F.keys.componentAdmin],
  },
  {
    name: 'PATCH /endpoints/{id}',
    method: 'PATCH',
    path: () => `${API}/endpoints/${F.endpointId}`,
    base: () => ({ description: 'patched', timeoutMs: 2000, inputs: { a: 1, constructor: { prototype: 1 } }, successStatus: 201, popResult: null }),
    wraps: () => [top('inputs'), inside({ description: 'x' }, 'staticResponse')],
    read: () => `${API}/endpoints/${F.endpointId}`,
  },
  {
    name: 'PATCH /endpoints/{id} (active)',
    method: 'PATCH',
    path: () => `${API}/endpoints/${F.activeEndpointId}`,
    base: () => ({
      path: '/fuzz/a/:id',
      method: 'POST',
      componentId: F.componentId,
      componentDigest: F.digest,
      popResult: 'a',
      guard: { type: 'component', componentId: F.validatorId },
      validationFailure: { status: 422, body: { error: 'invalid' } },
      executionPolicy: { mode: 'SERVICE_ACCOUNT', serviceAccountId: F.serviceAccountId, currentUser: 'EXECUTION_ACCOUNT' },
      successStatus: 201,
      timeoutMs: 60000,
      inputs: { a: [1, { b: null }] },
    }),
    wraps: () => [top('inputs'), inside({ path: '/fuzz/a/:id' }, 'validationFailure')],
    read: () => `${API}/endpoints/${F.activeEndpointId}`,
  },
  {
    name: 'PUT /endpoints/settings',
    method: 'PUT',
    path: () => `${API}/endpoints/settings`,
    base: () => ({ executionPolicy: { mode: 'CALLER' }, currentUser: 'BUSINESS_USER', saved: true }),
    wraps: () => [top('executionPolicy')],
    read: () => `${API}/endpoints/settings`,
  },
  {
    name: 'POST /users',
    method: 'POST',
    path: () => `${API}/users`,
    base: () => ({ name: 'fz-user', email: 'fz@example.com', roles: ['AGENT_USER'], platformAccess: true, workspaceIds: [F.workspaceId] }),
    wraps: () => [top('roles')],
    created: (id) => `${API}/users/${id}`,
  },
  {
    name: 'PATCH /users/{id}',
    method: 'PATCH',
    path: () => `${API}/users/${F.userId}`,
    base: () => ({ name: 'renamed', roles: ['AGENT_USER', 'ENDPOINT_INVOKE'], platformAccess: true, status: 'ACTIVE' }),
    wraps: () => [top('roles')],
    read: () => `${API}/users/${F.userId}`,
  },
  {
    name: 'POST /service-accounts',
    method: 'POST',
    path: () => `${API}/service-accounts`,
    base: () => ({ name: 'fz-sa', roles: ['ENDPOINT_INVOKE'], platformAccess: true, active: true }),
    wraps: () => [top('roles')],
    created: (id) => `${API}/service-accounts/${id}`,
  },
  {
    name: 'PATCH /service-accounts/{id}',
    method: 'PATCH',
    path: () => `${API}/service-accounts/${F.serviceAccountId}`,
    base: () => ({ roles: ['ENDPOINT_INVOKE'], platformAccess: true, active: true }),
    wraps: () => [top('roles')],
    read: () => `${API}/service-accounts/${F.serviceAccountId}`,
  },
  {
    name: 'POST /api-keys',
    method: 'POST',
    path: () => `${API}/api-keys`,
    base: () => ({ name: 'fz-key', principalId: F.userId, expiresAt: '2099-01-01T00:00:00Z' }),
    wraps: () => [top('name')],
    list: () => `${API}/api-keys?principalId=${F.userId}`,
    keys: () => [ADMIN_KEY, F.keys.plain],
  },
  {
    name: 'POST /workspaces',
    method: 'POST',
    path: () => `${API}/workspaces`,
    base: () => ({ name: 'fz-ws' }),
    wraps: () => [top('name')],
    list: () => `${API}/workspaces`,
  },
  {
    name: 'POST /groups',
    method: 'POST',
    path: () => `${API}/groups`,
    base: () => ({ name: 'fz-group', memberIds: [F.userId] }),
    wraps: () => [top('memberIds')],
  },
  {
    name: 'POST /auth/token',
    method: 'POST',
    path: () => `${API}/auth/token`,
    base: () => ({ ttlSeconds: 120 }),
    wraps: () => [top('ttlSeconds')],
  },
];

/** The parts of two JSON documents that differ, for messages. */
function firstDifference(a: unknown, b: unknown, pointer = ''): string | null {
  if (Object.is(a, b)) return null;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      const d = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${pointer}/${key}`);
      if (d) return d;
    }
    return null;
  }
  return `${pointer || '/'}: ${preview(JSON.stringify(a) ?? 'undefined', 200)} vs ${preview(JSON.stringify(b) ?? 'undefined', 200)}`;
}

const countOf = async (path: string) => {
  const r = await call<{ meta: { count: number } }>('GET', `${path}${path.includes('?') ? '&' : '?'}count=true&limit=0`);
  return r.body.meta.count;
};

const isJsonType = (contentType: string | undefined) => {
  const media = (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
  return media === 'application/json' || (media.startsWith('application/') && media.endsWith('+json'));
};


/**
 * The status DESIGN §3 prescribes for what is wrong with a body as such, before its content is
 * judged: 413 too large, 415 not JSON, 400 malformed or nested deeper than 128; null otherwise.
 */
function transportStatus(req: Req): number | null {
  const bytes = req.body?.bytes;
  if (!bytes || bytes.length === 0) return null;
  if (bytes.length > 4 * 1024 * 1024) return 413;
  if (!isJsonType(req.headers['content-type'])) return 415;
  const text = new TextDecoder().decode(bytes);
  try {
    JSON.parse(text);
  } catch {
    return 400;
  }
  return jsonNesting(text) > 128 ? 400 : null;
}

/** Resolves an RFC 6901 pointer in a parsed document (own properties only). */
function resolve(doc: unknown, pointer: string): { found: boolean } {
  if (pointer === '') return { found: true };
  let here: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (here === null || typeof here !== 'object' || !Object.hasOwn(here, key)) return { found: false };
    here = (here as Record<string, unknown>)[key];
  }
  return { found: true };
}

/** Every violation of a 422 points into the body: at a value sent, or at a missing property of an object sent. */
function checkPointers(req: Req, seen: Seen): void {
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder().decode(req.body?.bytes ?? new Uint8Array()));
  } catch {
    return;
  }
  for (const e of ((seen.json as { errors?: { pointer: string }[] }).errors ?? [])) {
    const parent = e.pointer.slice(0, Math.max(0, e.pointer.lastIndexOf('/')));
    if (!resolve(doc, e.pointer).found && !resolve(doc, parent).found) fail(req, seen, `a violation points outside the body: ${e.pointer}`);
  }
}

async function checkBodyRequest(target: BodyTarget, req: Req): Promise<void> {
  const before = await fingerprint();
  const resourceBefore = target.read ? await call('GET', target.read()) : null;
  const countBefore = target.list ? await countOf(target.list()) : null;
  const seen = await send(req);
  checkConventions(req, seen);
  const expected = transportStatus(req);
  if (expected !== null && seen.status !== expected) fail(req, seen, `expected ${expected} (DESIGN §3: 413 too large, 415 not JSON, 400 malformed), got ${seen.status}`);
  if (seen.status === 422) checkPointers(req, seen);
  if (seen.status >= 400) {
    checkUnchanged(req, seen, before, await fingerprint());
    if (target.read && resourceBefore) {
      const after = await call('GET', target.read());
      if (after.text !== resourceBefore.text) fail(req, seen, `a rejected ${target.method} changed ${target.read()}:\n  before ${preview(resourceBefore.text)}\n  after  ${preview(after.text)}`);
    }
    if (target.list && countBefore !== null) {
      const countAfter = await countOf(target.list());
      if (countAfter !== countBefore) fail(req, seen, `a rejected ${target.method} changed the count of ${target.list()} from ${countBefore} to ${countAfter}`);
    }
    return;
  }
  // Accepted: what was answered is what is stored.
  const answer = seen.json as Record<string, unknown>;
  if (target.method === 'PATCH' && resourceBefore && typeof (resourceBefore.body as { version?: unknown })?.version === 'number') {
    const previous = resourceBefore.body as Record<string, unknown>;
    const version = answer.version as number;
    if (seen.headers.get('etag') !== `"${version}"`) fail(req, seen, `an update answered ETag ${seen.headers.get('etag')} for version ${version} (DESIGN §4)`);
    if (version !== previous.version && version !== (previous.version as number) + 1) fail(req, seen, `version went from ${previous.version} to ${version}`);
    if (version === previous.version) {
      const difference = firstDifference({ ...previous, updatedAt: null }, { ...answer, updatedAt: null });
      if (difference) fail(req, seen, `an update changed the resource but kept its version: ${difference}`);
    }
  }
  let readPath: string | null = null;
  if (target.read) readPath = target.read();
  else if (target.created && typeof answer?.id === 'string') readPath = target.created(answer.id);
  if (readPath) {
    const stored = await call('GET', readPath);
    const answered = { ...answer };
    for (const field of target.answerOnly ?? []) delete answered[field];
    const difference = firstDifference(answered, stored.body);
    if (difference) fail(req, seen, `an accepted ${target.method} reads back differently from GET ${readPath}: ${difference}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Query strings for every list endpoint

type FieldType = 'uuid' | 'string' | 'integer' | 'timestamp' | 'boolean' | 'json' | 'path';

interface ListTarget {
  name: string;
  path: () => string;
  /** Logical fields (JSON paths and relation fields included) with their types. */
  fields: Record<string, FieldType>;
  /** Fields the engine must refuse (hidden, secret, or not declared). */
  refused?: string[];
  /** Run events: joins to `runs` and CTEs over `events`/`runs`. */
  joins?: boolean;
  /** The route's own query parameters (not the list engine's), with values to try. */
  own?: () => Record<string, fc.Arbitrary<string>>;
}

const LISTS: ListTarget[] = [
  {
    name: 'agents',
    path: () => `${API}/agents`,
    fields: {
      id: 'uuid', workspaceId: 'uuid', name: 'string', desc: 'string', status: 'string', ownerId: 'uuid', ownerType: 'string',
      serviceAccountUserId: 'uuid', metadata: 'json', config: 'json', policy: 'json', version: 'integer', createdAt: 'timestamp',
      updatedAt: 'timestamp', 'metadata.k': 'path', 'config.model': 'path', 'config.maxTicks': 'path', 'metadata.b.0': 'path', 'policy.toolPermissions.search': 'path',
    },
  },
  {
    name: 'components',
    path: () => `${API}/components`,
    fields: {
      id: 'uuid', workspaceId: 'uuid', name: 'string', kind: 'string', description: 'string', latestRevisionId: 'uuid', activeRevisionId: 'uuid',
      version: 'integer', createdBy: 'uuid', createdAt: 'timestamp', updatedAt: 'timestamp', 'latestRevision.status': 'string',
      'activeRevision.number': 'integer', 'latestRevision.digest': 'string', 'activeRevision.createdAt': 'timestamp',
    },
  },
  {
    name: 'component revisions',
    path: () => `${API}/components/${F.componentId}/revisions`,
    fields: { id: 'uuid', componentId: 'uuid', number: 'integer', digest: 'string', status: 'string', createdBy: 'uuid', createdAt: 'timestamp' },
    refused: ['content', 'compiled'],
  },
  {
    name: 'component deployments',
    path: () => `${API}/components/${F.componentId}/deployments`,
    fields: { id: 'uuid', componentId: 'uuid', revisionId: 'uuid', status: 'string', error: 'string', active: 'boolean', createdBy: 'uuid', createdAt: 'timestamp', readyAt: 'timestamp' },
  },
  {
    name: 'endpoints',
    path: () => `${API}/endpoints`,
    fields: {
      id: 'uuid', workspaceId: 'uuid', name: 'string', description: 'string', method: 'string', path: 'string', status: 'string', componentId: 'uuid',
      definition: 'json', contractStatus: 'json', version: 'integer', createdAt: 'timestamp', updatedAt: 'timestamp', timeoutMs: 'path',
      successStatus: 'path', staticResponse: 'path', inputs: 'path', 'definition.staticResponse.status': 'path', 'contractStatus.valid': 'path',
    },
    refused: ['shape', 'createdBy', 'guardComponentId'],
  },
  {
    name: 'audit',
    path: () => `${API}/audit`,
    fields: {
      id: 'uuid', at: 'timestamp', kind: 'string', action: 'string', actorId: 'uuid', executionAccountId: 'uuid', resourceType: 'string',
      resourceId: 'uuid', workspaceId: 'uuid', beforeVersion: 'integer', afterVersion: 'integer', status: 'integer', durationMs: 'integer',
      oid: 'string', executionId: 'uuid', details: 'json', 'details.changes': 'path', 'details.name': 'path',
    },
    refused: ['seq'],
  },
  {
    name: 'workspaces',
    path: () => `${API}/workspaces`,
    fields: { id: 'uuid', name: 'string', createdAt: 'timestamp' },
  },
  {
    name: 'users',
    path: () => `${API}/users`,
    fields: { id: 'uuid', kind: 'string', name: 'string', email: 'string', roles: 'json', platformAccess: 'boolean', status: 'string', createdAt: 'timestamp' },
    refused: ['active', 'updatedAt', 'keyHash', 'workspaceIds'],
  },
  {
    name: 'service accounts',
    path: () => `${API}/service-accounts`,
    fields: { id: 'uuid', kind: 'string', name: 'string', roles: 'json', platformAccess: 'boolean', active: 'boolean', createdAt: 'timestamp' },
    refused: ['email', 'status', 'updatedAt'],
  },
  {
    name: 'groups',
    path: () => `${API}/groups`,
    fields: { id: 'uuid', name: 'string', createdAt: 'timestamp' },
    refused: ['memberIds'],
  },
  {
    name: 'api-keys',
    path: () => `${API}/api-keys`,
    fields: { id: 'uuid', principalId: 'uuid', name: 'string', expiresAt: 'timestamp', revokedAt: 'timestamp', lastUsedAt: 'timestamp', createdAt: 'timestamp' },
    refused: ['keyHash', 'key_hash', 'digest'],
    own: () => ({ principalId: fc.oneof(fc.constantFrom(F.userId, F.adminId, F.serviceAccountId, F.agentId, F.userId.toUpperCase()), fc.uuid(), fc.string({ maxLength: 40 })) }),
  },
  {
    name: 'run events',
    path: () => `${API}/agents/runs/${F.runId}/events`,
    fields: {
      id: 'uuid', runId: 'uuid', rootRunId: 'uuid', parentRunId: 'uuid', seq: 'integer', type: 'string', tickIndex: 'integer', actor: 'string',
      createdAt: 'timestamp', data: 'json', 'data.toolName': 'path', 'data.args.q': 'path', 'data.list.0': 'path', 'data.n': 'path',
      'run.status': 'string', 'run.agentId': 'uuid',
    },
    joins: true,
  },
];

const OPS = [
  'eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'like', 'notLike', 'ilike', 'notILike', 'in', 'notIn', 'any', 'isNull', 'isNotNull', 'between',
  'contains', 'containedBy', 'arrayHas', 'arrayHasAny', 'arrayHasAll', 'arrayContainedBy', 'jsonArrayHas', 'jsonArrayHasAny',
  'jsonArrayHasAll', 'startsWith', 'endsWith', 'true', 'false',
];
const ORDERED_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'notIn', 'any', 'isNull', 'isNotNull', 'between'];
const STRING_OPS = [...ORDERED_OPS, 'like', 'notLike', 'ilike', 'notILike', 'startsWith', 'endsWith'];
const JSON_OPS = ['isNull', 'isNotNull', 'contains', 'containedBy', 'jsonArrayHas', 'jsonArrayHasAny', 'jsonArrayHasAll', 'arrayHas', 'arrayHasAny', 'arrayHasAll', 'arrayContainedBy'];
/** The operators each field type takes (src/core/query/model/operators.ts), so that most predicates compile. */
const OPS_BY_TYPE: Record<FieldType, string[]> = {
  uuid: ['eq', 'ne', 'in', 'notIn', 'any', 'isNull', 'isNotNull'],
  string: STRING_OPS,
  integer: ORDERED_OPS,
  timestamp: ORDERED_OPS,
  boolean: ['eq', 'ne', 'isNull', 'isNotNull', 'true', 'false'],
  json: JSON_OPS,
  path: [...STRING_OPS, 'true', 'false', ...JSON_OPS.slice(2)],
};
const ARITY: Record<string, 'none' | 'scalar' | 'pair' | 'list' | 'json'> = {
  eq: 'scalar', ne: 'scalar', gt: 'scalar', gte: 'scalar', lt: 'scalar', lte: 'scalar', like: 'scalar', notLike: 'scalar', ilike: 'scalar',
  notILike: 'scalar', in: 'list', notIn: 'list', any: 'list', isNull: 'none', isNotNull: 'none', between: 'pair', contains: 'json',
  containedBy: 'json', arrayHas: 'scalar', arrayHasAny: 'list', arrayHasAll: 'list', arrayContainedBy: 'list', jsonArrayHas: 'scalar',
  jsonArrayHasAny: 'list', jsonArrayHasAll: 'list', startsWith: 'scalar', endsWith: 'scalar', true: 'none', false: 'none',
};
const CAST_TYPES = ['TEXT', 'INTEGER', 'BIGINT', 'NUMERIC', 'BOOLEAN', 'DATE', 'TIMESTAMP', 'TIMESTAMPTZ', 'JSON', 'JSONB', 'UUID'];
const SCALAR_FNS = ['lower', 'upper', 'length', 'coalesce', 'date_trunc', 'jsonExtract'];
const AGGREGATES = ['count', 'min', 'max', 'sum', 'avg'];

function queryArbitraries(list: ListTarget) {
  const names = Object.keys(list.fields);
  const aliases = ['n', 'x', 'total', 'v'];
  const joinNames = list.joins ? ['r.status', 'r.id', 'r.createdAt', 'r.tickCount', 'x.n', 'x.runId', 'y.id', 'y.status'] : [];
  const field = fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom(...names) },
    { weight: 1, arbitrary: fc.constantFrom(...aliases, ...joinNames, ...(list.refused ?? [])) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 1, arbitrary: fc.constantFrom('', '*', '__proto__', 'constructor', 'toString', 'id; DROP TABLE agents', 'data.', 'data..x', 'metadata.a.b.c.d.e.f.g.h.i', 'metadata.__proto__', 'metadata.constructor.prototype', '"id"', 'x'.repeat(200), 'metadata.%', 'run.nope', 'run.', '.id') },
  );
  const text = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('', '%', '_', '\\', '%a%', 'a_b', '\\%', '\u0000', '\ud800', 'ACTIVE', 'queued', 'run.queued', 'x'.repeat(4097), '🙂'));
  const int = fc.oneof(fc.integer({ min: -3, max: 20 }), fc.integer(), fc.constantFrom(0, -0, 2 ** 53, 1.5, 1e300, '7', ' 7', '0x7', '1e2', ''));
  const time = fc.oneof(
    fc.date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constantFrom('2024-01-01', '2024-02-30', '2024-01-01T00:00:00+14:00', '0000-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z', 'yesterday', 0, 1e15, -1, '1700000000000'),
  );
  const uuid = fc.oneof(fc.uuid(), fc.constantFrom(F.agentId, F.runId, F.componentId, F.userId, F.workspaceId, 'not-a-uuid', '', F.agentId.toUpperCase()));
  const json = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom({ k: 'v' }, [1, 2], { b: [1] }, {}, [], { __proto__x: 1 }));
  const scalarOf = (type: FieldType): fc.Arbitrary<unknown> => {
    switch (type) {
      case 'uuid': return uuid;
      case 'string': return text;
      case 'integer': return int;
      case 'timestamp': return time;
      case 'boolean': return fc.constantFrom(true, false, 'true', 'false', 1, 0, 'yes', null);
      case 'json': return json;
      case 'path': return fc.oneof(text, int, fc.boolean(), json);
    }
  };
  const valueFor = (type: FieldType, op: string): fc.Arbitrary<unknown> => {
    const one = scalarOf(type);
    switch (ARITY[op]) {
      case 'none': return fc.constant(undefined);
      case 'pair': return fc.oneof({ weight: 5, arbitrary: fc.tuple(one, one) }, { weight: 1, arbitrary: fc.array(one, { maxLength: 3 }) });
      case 'list': return fc.oneof({ weight: 5, arbitrary: fc.array(one, { minLength: 1, maxLength: 4 }) }, { weight: 1, arbitrary: fc.constantFrom([], 'x', null) }, { weight: 1, arbitrary: fc.array(one, { minLength: 1001, maxLength: 1001 }) });
      case 'json': return json;
      default: return one;
    }
  };
  // Most predicates are well typed, so that they reach SQL; some are not.
  const typedPredicate = fc.constantFrom(...names).chain((name) => {
    const type = list.fields[name]!;
    return fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...OPS_BY_TYPE[type]) }, { weight: 1, arbitrary: fc.constantFrom(...OPS) }).chain((op) =>
      valueFor(type, op).map((value) => (value === undefined ? { field: name, op } : { field: name, op, value })));
  });
  const randomPredicate = fc.record({ field, op: fc.oneof(fc.constantFrom(...OPS), fc.string({ maxLength: 6 })), value: fc.oneof(fc.jsonValue({ maxDepth: 2 }), text) }, { requiredKeys: ['field', 'op'] });
  const { node: filter } = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 6, arbitrary: typedPredicate },
      { weight: 2, arbitrary: randomPredicate },
      { weight: 2, arbitrary: fc.record({ and: fc.array(tie('node'), { maxLength: 3 }) }) },
      { weight: 2, arbitrary: fc.record({ or: fc.array(tie('node'), { maxLength: 3 }) }) },
      { weight: 1, arbitrary: fc.record({ not: tie('node') }) },
      { weight: 1, arbitrary: fc.constantFrom(null, 1, 'x', [], {}, { and: 'x' }, { field: 'id' }, { foo: 1 }, { and: [], or: [] }, { not: null }) },
    ),
  }));
  const deepFilter = fc.integer({ min: 6, max: 11 }).map((depth) => {
    let node: unknown = { field: names[0], op: 'isNotNull' };
    for (let i = 1; i < depth; i++) node = i % 3 === 0 ? { not: node } : { [i % 2 ? 'and' : 'or']: [node] };
    return node;
  });
  const manyPredicates = fc.integer({ min: 190, max: 210 }).map((n) => ({ or: Array.from({ length: n }, (_, i) => ({ field: names[0], op: 'isNull', i })).map(({ field: f, op }) => ({ field: f, op })) }));
  const dir = fc.constantFrom('asc', 'desc', 'ASC', 'DESC', 'up', '');
  const sortEntry = fc.oneof(field, field.map((f) => `-${f}`), fc.record({ field, dir }));
  const alias = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...aliases) }, { weight: 1, arbitrary: fc.constantFrom('id', '"', '', '__proto__', 'a b', 'x'.repeat(200)) }, { weight: 1, arbitrary: fc.string({ maxLength: 6 }) });
  const scalar = fc.oneof(text, int, fc.boolean(), fc.constant(null));
  const { expr } = fc.letrec<{ expr: unknown }>((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 6, arbitrary: field },
      { weight: 2, arbitrary: fc.record({ value: scalar }) },
      { weight: 2, arbitrary: fc.record({ fn: fc.constantFrom(...SCALAR_FNS, ...AGGREGATES), args: fc.array(fc.oneof(tie('expr'), fc.constantFrom('*', 'day', 'year', 'a.b')), { maxLength: 3 }) }) },
      { weight: 1, arbitrary: fc.record({ cast: fc.constantFrom(...CAST_TYPES, 'BLOB', 'text'), arg: tie('expr') }) },
      { weight: 1, arbitrary: fc.record({ coalesce: fc.array(tie('expr'), { maxLength: 3 }) }) },
      { weight: 1, arbitrary: fc.record({ case: fc.array(fc.record({ when: filter, then: tie('expr') }), { maxLength: 2 }), else: tie('expr') }, { requiredKeys: ['case'] }) },
      { weight: 1, arbitrary: fc.record({ raw: fc.oneof(fc.constantFrom('isRunEvent', 'toolName', 'now()', 'SELECT 1'), fc.record({ value: scalar })) }) },
    ),
  }));
  const withAlias = (entry: fc.Arbitrary<unknown>) => fc.tuple(entry, fc.option(alias, { nil: undefined })).map(([e, a]) =>
    e !== null && typeof e === 'object' && !Array.isArray(e) && a !== undefined ? { ...e, as: a } : e);
  const projection = fc.oneof(
    { weight: 5, arbitrary: field },
    { weight: 1, arbitrary: fc.record({ field, as: alias }) },
    { weight: 3, arbitrary: withAlias(expr) },
    { weight: 1, arbitrary: fc.record({ fn: fc.constantFrom(...SCALAR_FNS, ...AGGREGATES), args: fc.array(fc.oneof(field, fc.constant('*')), { maxLength: 3 }), as: alias, filterType: fc.constantFrom('string', 'integer', 'number', 'boolean', 'timestamp', 'json', 'x') }, { requiredKeys: ['fn', 'args', 'as'] }) },
  );
  // An aggregate query that should compile: groupBy fields, aggregates over them, sorted by an alias.
  const scalarNames = names.filter((n) => list.fields[n] !== 'json');
  const orderable = names.filter((n) => ['integer', 'timestamp', 'string'].includes(list.fields[n]!));
  const aggregateQuery = fc.record({
    groupBy: fc.subarray(scalarNames, { minLength: 1, maxLength: 2 }),
    aggs: fc.array(fc.tuple(fc.constantFrom(...AGGREGATES), fc.constantFrom('*', ...orderable)), { minLength: 1, maxLength: 3 }),
    sortByAlias: fc.boolean(),
    count: fc.boolean(),
  }).map(({ groupBy, aggs, sortByAlias, count }) => {
    const fields = [...groupBy, ...aggs.map(([fn, arg], i) => ({ fn, args: [arg], as: `a${i}` }))];
    const params: [string, unknown][] = [['fields', fields], ['groupBy', groupBy], ['sort', sortByAlias ? ['-a0'] : groupBy]];
    if (count) params.push(['count', 'true']);
    return params;
  });
  const distinctQuery = fc.record({ distinct: fc.subarray(scalarNames, { minLength: 1, maxLength: 2 }), rest: fc.subarray(names, { maxLength: 2 }), count: fc.boolean() })
    .map(({ distinct, rest, count }): [string, unknown][] => [['distinct', distinct], ['sort', [...distinct, ...rest.map((r) => `-${r}`)]], ...(count ? [['count', 'true'] as [string, unknown]] : [])]);
  const join = fc.record({
    table: fc.oneof({ weight: 5, arbitrary: fc.constant('runs') }, { weight: 1, arbitrary: fc.constantFrom('events', 'agents', 'c', 'nope', 'principals', 'api_keys') }),
    alias: fc.oneof({ weight: 5, arbitrary: fc.constant('r') }, { weight: 1, arbitrary: fc.constantFrom('x', 'events', '', 't0', 'r r') }),
    type: fc.constantFrom('left', 'inner', 'cross', 'LEFT'),
    on: fc.record({ left: fc.oneof(fc.constantFrom('runId', 'rootRunId', 'parentRunId', 'seq'), field), op: fc.constantFrom('eq', 'eq', 'ne', 'gt', 'like', 'x'), right: fc.constantFrom('r.id', 'r.id', 'r.agentId', 'r.tickCount', 'x.y', 'id', 'r.input') }),
  }, { requiredKeys: ['table', 'alias'] });
  const cteDef = fc.record({
    from: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('events', 'runs') }, { weight: 1, arbitrary: fc.constantFrom('c', 'agents', 'd', 'audit') }),
    filter,
    fields: fc.oneof(fc.constant(['runId', { fn: 'count', args: ['*'], as: 'n' }]), fc.constant(['id', 'status']), fc.array(projection, { maxLength: 3 })),
    groupBy: fc.oneof(fc.constant(['runId']), fc.array(field, { maxLength: 2 })),
    sort: fc.array(sortEntry, { maxLength: 2 }),
    limit: fc.oneof(fc.integer({ min: -2, max: 20_000 }), fc.constant('x')),
  }, { requiredKeys: ['from'] });
  const cte = fc.dictionary(fc.constantFrom('c', 'd', 'x', 'events', '__proto__', 'x y', 'r'), cteDef, { maxKeys: 3 });
  // Join + CTE combinations that should compile on the run-events list, then varied.
  const eventsQuery = fc.record({
    joinType: fc.constantFrom('left', 'inner'),
    withCte: fc.boolean(),
    cteLimit: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
    chain: fc.boolean(),
    filterOnJoin: fc.option(fc.constantFrom('queued', 'running', '%'), { nil: undefined }),
    count: fc.boolean(),
    debug: fc.boolean(),
  }).map(({ joinType, withCte, cteLimit, chain, filterOnJoin, count, debug }) => {
    const params: [string, unknown][] = [];
    const joins: unknown[] = [{ table: 'runs', alias: 'r', type: joinType, on: { left: 'runId', op: 'eq', right: 'r.id' } }];
    const fields: unknown[] = ['seq', 'type', 'r.status'];
    if (withCte) {
      const c: Record<string, unknown> = { from: 'events', fields: ['runId', { fn: 'count', args: ['*'], as: 'n' }], groupBy: ['runId'], filter: { field: 'seq', op: 'gte', value: 0 }, sort: ['-n'] };
      if (cteLimit !== undefined) c.limit = cteLimit;
      const ctes: Record<string, unknown> = { c };
      if (chain) ctes.d = { from: 'c', fields: ['runId', 'n'], filter: { field: 'n', op: 'gt', value: 0 } };
      params.push(['cte', ctes]);
      joins.push({ table: chain ? 'd' : 'c', alias: 'x', type: 'left', on: { left: 'runId', op: 'eq', right: 'x.runId' } });
      fields.push('x.n');
    }
    params.push(['joins', joins], ['fields', fields]);
    if (filterOnJoin !== undefined) params.push(['filter', { field: 'r.status', op: filterOnJoin === '%' ? 'like' : 'eq', value: filterOnJoin }]);
    if (count) params.push(['count', 'true']);
    if (debug) params.push(['debug', 'true']);
    return params;
  });
  const castMap = fc.dictionary(fc.oneof(field, alias), fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...CAST_TYPES) }, { weight: 1, arbitrary: fc.string({ maxLength: 6 }) }), { minKeys: 1, maxKeys: 3 });
  const intText = fc.oneof(
    fc.integer({ min: -10, max: 20_000 }).map(String),
    fc.constantFrom('', 'abc', '1e3', '0x10', ' 5', '5 ', '1.5', '-0', '99999999999999999999', '9007199254740991', '9007199254740992', '10001', '10000', '0', 'NaN', 'Infinity', '+1', '%00', '\u0000'),
  );
  const boolText = fc.constantFrom('true', 'false', '1', '0', 'TRUE', 'yes', '');
  return { filter, deepFilter, manyPredicates, sortEntry, projection, aggregateQuery, distinctQuery, join, cte, castMap, eventsQuery, field, dir, intText, boolText };
}

/** One parameter, in one of its encodings. */
type Param = { name: string; encoded: string };
const enc = encodeURIComponent;
const jsonParam = (name: string, value: unknown): Param => ({ name, encoded: `${name}=${enc(JSON.stringify(value))}` });
const bracketParam = (name: string, value: unknown): Param => {
  // qs: nested objects/arrays as name[a][0][b]=v (null → empty, booleans/numbers as text).
  const encoded = qs.stringify({ [name]: value }, { encodeValuesOnly: true, arrayFormat: 'indices', allowDots: false });
  return { name, encoded: encoded === '' ? `${name}=` : encoded };
};
const listParam = (name: string, values: unknown[]): Param => ({ name, encoded: `${name}=${enc(values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(','))}` });
const repeatedParam = (name: string, values: unknown[]): Param => ({ name, encoded: values.map((v) => `${name}=${enc(typeof v === 'string' ? v : JSON.stringify(v))}`).join('&') || `${name}=` });
const plainParam = (name: string, value: string): Param => ({ name, encoded: `${name}=${enc(value)}` });

/** Any of a value's encodings: JSON, bracket style, comma list or repeated (the last two for lists). */
function encoded(name: string, value: unknown, how: number): Param {
  if (typeof value === 'string') return plainParam(name, value);
  if (how % 4 === 0) return bracketParam(name, value);
  if (how % 4 === 2 && Array.isArray(value)) return listParam(name, value);
  if (how % 4 === 3 && Array.isArray(value)) return repeatedParam(name, value);
  return jsonParam(name, value);
}

function arbQuery(list: ListTarget): fc.Arbitrary<string> {
  const a = queryArbitraries(list);
  const one = <T>(name: string, value: fc.Arbitrary<T>) => fc.tuple(value, fc.nat()).map(([v, how]): Param[] => [encoded(name, v, how)]);
  const many = (params: fc.Arbitrary<[string, unknown][]>) => fc.tuple(params, fc.nat()).map(([ps, how]) => ps.map(([n, v]) => encoded(n, v, how)));
  const param: fc.Arbitrary<Param[]> = fc.oneof(
    { weight: 6, arbitrary: one('filter', a.filter) },
    { weight: 1, arbitrary: one('filter', fc.oneof(a.deepFilter, a.manyPredicates)) },
    { weight: 2, arbitrary: one('sort', fc.oneof(fc.array(a.sortEntry, { maxLength: 3 }), fc.dictionary(a.field, a.dir, { maxKeys: 2 }), a.sortEntry.filter((e) => typeof e === 'string'))) },
    { weight: 3, arbitrary: one('fields', fc.array(a.projection, { maxLength: 4 })) },
    { weight: 1, arbitrary: one('distinct', fc.array(a.field, { maxLength: 3 })) },
    { weight: 1, arbitrary: one('groupBy', fc.array(a.field, { maxLength: 3 })) },
    { weight: 2, arbitrary: many(a.aggregateQuery) },
    { weight: 1, arbitrary: many(a.distinctQuery) },
    { weight: list.joins ? 3 : 1, arbitrary: many(a.eventsQuery) },
    { weight: 1, arbitrary: one('joins', fc.array(a.join, { maxLength: 2 })) },
    { weight: 1, arbitrary: one('cast', a.castMap) },
    { weight: list.joins ? 2 : 1, arbitrary: one('cte', a.cte) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom('limit', 'offset'), a.intText).map(([n, v]) => [plainParam(n, v)]) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('count', 'debug'), a.boolText).map(([n, v]) => [plainParam(n, v)]) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('filter', 'sort', 'fields', 'cte', 'joins', 'cast', 'groupBy', 'distinct', 'limit', 'unknown', 'principalId', 'filter[and]', 'sort[]', 'fields[0][fn]', 'filter[__proto__][field]', 'cte[constructor][prototype]'), fc.string({ maxLength: 20 })).map(([n, v]) => [{ name: n, encoded: `${enc(n)}=${enc(v)}` }]) },
  );
  const ownParams = Object.entries(list.own?.() ?? {}).map(([name, value]) => value.map((v): Param[] => [plainParam(name, v)]));
  const any = ownParams.length > 0 ? fc.oneof({ weight: 6, arbitrary: param }, { weight: 1, arbitrary: fc.oneof(...ownParams) }) : param;
  return fc.array(any, { minLength: 1, maxLength: 4 }).map((groups) => groups.flat().map((x) => x.encoded).join('&'));
}

/** Query strings with no grammar at all: percent signs, brackets, ampersands. */
const arbRawQuery = fc.array(
  fc.oneof(
    fc.constantFrom('filter', 'sort', 'fields', 'joins', 'groupBy', 'cast', 'cte', 'limit', 'offset', 'count', 'debug', 'distinct'),
    fc.constantFrom('[', ']', '[0]', '[and]', '[field]', '[__proto__]', '[constructor][prototype]', '=', '&', '%', '%ZZ', '%E0%A4%A', '%00', '%5B', '%5D', '+', ',', '-', '{', '}', '"', '%22', '%7B', '.', '[]', '[][]', '[' + '['.repeat(30)),
    fc.string({ maxLength: 6 }).map(enc),
  ),
  { minLength: 1, maxLength: 24 },
).map((parts) => parts.join(''));

async function checkListRequest(req: Req, key: string): Promise<void> {
  const seen = await send(req);
  checkConventions(req, seen);
  if (seen.status >= 500) return;
  const body = seen.json as Record<string, any>;
  // A request target (as sent, a fragment included) over the control plane's limit is 414 before
  // any list is read, and only such a one.
  const url = new URL(`http://localhost${req.path}`);
  const overLimit = url.href.length - url.origin.length > CONTROL_PLANE_TARGET_LIMIT;
  if (overLimit !== (seen.status === 414)) fail(req, seen, overLimit ? 'a request target over the limit was not refused with 414' : 'a list answered 414 within the request-target limit');
  if (overLimit) {
    if (body.code !== 'URI_TOO_LONG') fail(req, seen, '414 without code URI_TOO_LONG');
    return;
  }
  if (seen.status === 200) {
    if (!Array.isArray(body?.data) || typeof body.meta !== 'object') fail(req, seen, 'a list answer without {data: [...], meta}');
    const meta = body.meta as Record<string, unknown>;
    if (!Number.isInteger(meta.offset) || !Number.isInteger(meta.limit) || typeof meta.hasMore !== 'boolean') fail(req, seen, 'meta without integer offset/limit and boolean hasMore');
    if ((meta.limit as number) > 10_000 || (meta.limit as number) < 0) fail(req, seen, 'meta.limit outside 0..10000');
    if (body.data.length > (meta.limit as number)) fail(req, seen, 'more rows than meta.limit');
    if (body.debug !== undefined && key !== ADMIN_KEY) fail(req, seen, 'debug output for a non-admin');
    const params = new URLSearchParams(new URL(`http://localhost${req.path}`).search);
    const countParams = params.getAll('count');
    if (countParams.length === 1 && countParams[0] === 'true') {
      if (!Number.isInteger(meta.count) || (meta.count as number) < 0) fail(req, seen, 'count=true without an integer meta.count');
      const expectMore = (meta.offset as number) + body.data.length < (meta.count as number);
      if (meta.hasMore !== expectMore) fail(req, seen, `hasMore ${meta.hasMore} but offset ${meta.offset} + ${body.data.length} rows of count ${meta.count}`);
    }
    if (countParams.length === 0 && meta.count !== undefined) fail(req, seen, 'meta.count without count=true');
    if (meta.hasMore === true && body.data.length !== meta.limit) fail(req, seen, `hasMore with ${body.data.length} rows of limit ${meta.limit}`);
    // The digest of an API key is never a field (src/accounts/list.ts), nor in an account's record.
    if (/\/(api-keys|users|service-accounts|groups)(\?|$)/.test(req.path.split('?')[0]! + '?') && /[0-9a-f]{64}/i.test(seen.text)) fail(req, seen, 'an API key digest in a list');
    return;
  }
  if (![400, 403, 404].includes(seen.status)) fail(req, seen, `a list answered ${seen.status}`);
  if (seen.status === 400 && body.code === 'INVALID_QUERY') {
    const errors = body.errors as { pointer?: unknown }[] | undefined;
    if (!Array.isArray(errors) || errors.length === 0) fail(req, seen, 'INVALID_QUERY without errors');
    for (const e of errors) if (typeof e.pointer !== 'string' || !e.pointer.startsWith('/query')) fail(req, seen, `a query error pointing outside /query: ${JSON.stringify(e.pointer)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Path segments on every /{id} route

interface IdRoute {
  method: string;
  path: (id: string) => string;
  body?: () => unknown;
  /** Fixture ids a random segment must not be confused with (the route's own resource). */
  own: () => string[];
}

const ID_ROUTES: IdRoute[] = [
  { method: 'GET', path: (id) => `${API}/agents/${id}`, own: () => [F.agentId] },
  { method: 'PATCH', path: (id) => `${API}/agents/${id}`, body: () => ({ desc: 'path-fuzz' }), own: () => [F.agentId] },
  { method: 'DELETE', path: (id) => `${API}/agents/${id}`, own: () => [] },
  { method: 'POST', path: (id) => `${API}/agents/${id}/runs`, body: () => ({ input: 1 }), own: () => [F.agentId] },
  { method: 'GET', path: (id) => `${API}/agents/runs/${id}`, own: () => [F.runId] },
  { method: 'POST', path: (id) => `${API}/agents/runs/${id}/cancel`, own: () => [] },
  { method: 'GET', path: (id) => `${API}/agents/runs/${id}/events`, own: () => [F.runId] },
  { method: 'GET', path: (id) => `${API}/components/${id}`, own: () => [F.componentId] },
  { method: 'PATCH', path: (id) => `${API}/components/${id}`, body: () => ({ description: 'path-fuzz' }), own: () => [F.componentId] },
  { method: 'DELETE', path: (id) => `${API}/components/${id}`, own: () => [] },
  { method: 'GET', path: (id) => `${API}/components/${id}/revisions`, own: () => [F.componentId] },
  { method: 'GET', path: (id) => `${API}/components/${F.componentId}/revisions/${id}`, own: () => [F.revisionId] },
  { method: 'GET', path: (id) => `${API}/components/${id}/revisions/${F.revisionId}`, own: () => [F.componentId] },
  { method: 'POST', path: (id) => `${API}/components/${id}/deployments`, body: () => ({ revisionId: F.revisionId }), own: () => [] },
  { method: 'GET', path: (id) => `${API}/components/${id}/deployments`, own: () => [F.componentId] },
  { method: 'GET', path: (id) => `${API}/components/${F.componentId}/deployments/${id}`, own: () => [] },
  { method: 'POST', path: (id) => `${API}/components/${F.componentId}/deployments/${id}/activate`, own: () => [] },
  { method: 'GET', path: (id) => `${API}/endpoints/${id}`, own: () => [F.endpointId] },
  { method: 'PATCH', path: (id) => `${API}/endpoints/${id}`, body: () => ({ description: 'path-fuzz' }), own: () => [F.endpointId] },
  { method: 'DELETE', path: (id) => `${API}/endpoints/${id}`, own: () => [] },
  { method: 'POST', path: (id) => `${API}/endpoints/${id}/activate`, own: () => [] },
  { method: 'POST', path: (id) => `${API}/endpoints/${id}/disable`, own: () => [] },
  { method: 'POST', path: (id) => `${API}/endpoints/${id}/validate`, own: () => [F.endpointId] },
  { method: 'GET', path: (id) => `${API}/endpoints/${id}/statistics`, own: () => [F.endpointId] },
  { method: 'GET', path: (id) => `${API}/endpoints/${id}/openapi`, own: () => [F.endpointId] },
  { method: 'GET', path: (id) => `${API}/users/${id}`, own: () => [F.userId, F.adminId] },
  { method: 'PATCH', path: (id) => `${API}/users/${id}`, body: () => ({ name: 'path-fuzz' }), own: () => [F.userId] },
  { method: 'GET', path: (id) => `${API}/service-accounts/${id}`, own: () => [F.serviceAccountId] },
  { method: 'PATCH', path: (id) => `${API}/service-accounts/${id}`, body: () => ({ name: 'path-fuzz' }), own: () => [F.serviceAccountId] },
  { method: 'DELETE', path: (id) => `${API}/api-keys/${id}`, own: () => [] },
];

type Kind = 'agent' | 'run' | 'component' | 'revision' | 'deployment' | 'endpoint' | 'user' | 'serviceAccount' | 'apiKey';

/** What kind of thing a route's `{id}` names. */
function kindOf(route: IdRoute): Kind {
  const path = route.path('ID');
  if (path.includes('/agents/runs/ID')) return 'run';
  if (path.includes('/agents/ID')) return 'agent';
  if (path.includes('/revisions/ID')) return 'revision';
  if (path.includes('/deployments/ID')) return 'deployment';
  if (path.includes('/components/ID')) return 'component';
  if (path.includes('/endpoints/ID')) return 'endpoint';
  if (path.includes('/users/ID')) return 'user';
  if (path.includes('/service-accounts/ID')) return 'serviceAccount';
  return 'apiKey';
}

const fixturesByKind = (): Record<Kind, string[]> => ({
  agent: [F.agentId],
  run: [F.runId],
  component: [F.componentId],
  revision: [F.revisionId],
  deployment: [],
  endpoint: [F.endpointId],
  user: [F.userId, F.adminId],
  serviceAccount: [F.serviceAccountId],
  apiKey: [F.apiKeyId],
});

/** A path segment as sent (already percent-encoded where it is meant to be), and whether it may name a fixture. */
interface Segment {
  text: string;
  mayName: boolean;
}
/** The id of an existing thing of another kind (an agent's id on /components/{id}, …). */
const arbForeignId = (route: IdRoute): fc.Arbitrary<Segment> => {
  const kind = kindOf(route);
  const ids = Object.entries(fixturesByKind()).filter(([k]) => k !== kind).flatMap(([, v]) => v).filter((id) => id !== '');
  return fc.constantFrom(...ids, F.workspaceId).map((text) => ({ text, mayName: false }));
};
const arbSegment: fc.Arbitrary<Segment> = fc.oneof(
  { weight: 3, arbitrary: fc.uuid().map((u) => ({ text: u, mayName: false })) },
  { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 40 }).map((s) => ({ text: enc(s), mayName: false })) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).map((s) => ({ text: enc(s.replace(/[\ud800-\udfff]/g, 'x')), mayName: false })) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '%2F', 'a%2Fb', '..', '%2e%2e', '%2E%2E%2F%2E%2E', '.', '%00', 'a%00b', '%ZZ', '%', '%E0%A4%A', '%C0%AF', '%ED%A0%80', '%F0%9F%98%80',
      'null', 'undefined', '0', '-1', '1e3', 'NaN', 'true', '%20', '+', '*', '%25', "'%20OR%201=1--", '%3Bselect', '__proto__', 'constructor',
      '00000000-0000-0000-0000-000000000000', '00000000000000000000000000000000', '{00000000-0000-0000-0000-000000000000}', 'settings%2F',
    ).map((text) => ({ text, mayName: false })),
  },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 20_000 }).map((n) => ({ text: 'a'.repeat(n), mayName: false })) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 3_000 }).map((n) => ({ text: '%2F'.repeat(n), mayName: false })) },
  // A fixture id in another spelling: upper case, percent-encoded, with a suffix.
  { weight: 2, arbitrary: fc.constantFrom('upper', 'encoded', 'suffix', 'prefix', 'trailing-slash').map((how) => ({ text: how, mayName: true })) },
);

function spell(segment: Segment, id: string): string {
  if (!segment.mayName) return segment.text;
  switch (segment.text) {
    case 'upper':
      return id.toUpperCase();
    case 'encoded':
      return [...id].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    case 'suffix':
      return `${id}%00`;
    case 'prefix':
      return ` ${id}`.replace(' ', '%20');
    default:
      return `${id}/`;
  }
}

// ---------------------------------------------------------------------------------------------
// Authorization headers

interface AuthCase {
  header: string | null;
  /** True when the header names a usable credential (the request must not be 401). */
  valid: boolean;
  label: string;
}

const latin1 = (s: string) => s.replace(/[^\x20-\x7e\x80-\xff]/g, '');

function arbAuth(tokens: { jwt: string; signed: { valid: string[]; invalid: string[] } }): fc.Arbitrary<AuthCase> {
  const printable = fc.string({ unit: 'grapheme-ascii', maxLength: 60 });
  const key = ADMIN_KEY;
  return fc.oneof(
    fc.constant<AuthCase>({ header: null, valid: false, label: 'none' }),
    printable.map((s) => ({ header: s, valid: false, label: 'printable' })),
    printable.map((s) => ({ header: `Bearer ${s}`, valid: false, label: 'bearer printable' })),
    fc.string({ unit: 'binary', maxLength: 40 }).map((s) => ({ header: `Bearer ${latin1(s)}x`, valid: false, label: 'bearer latin1' })),
    fc.string({ unit: 'grapheme-ascii', minLength: 29, maxLength: 80 }).map((s) => ({ header: `Bearer sk-${s.replace(/\s/g, '_')}`, valid: false, label: 'bearer sk-' })),
    fc.string({ minLength: 40, maxLength: 40 }).map((s) => ({ header: `Bearer sk-plt_${latin1(s).replace(/\s/g, 'A').padEnd(46, 'A').slice(0, 46)}`, valid: false, label: 'generated shape, bad checksum' })),
    fc.tuple(fc.nat(key.length - 1), fc.constantFrom('x', 'A', '0', '-', '\u00e9')).map(([i, c]) => {
      const changed = key.slice(0, i) + c + key.slice(i + 1);
      return { header: `Bearer ${changed}`, valid: changed === key, label: 'admin key, one character changed' };
    }),
    fc.nat(key.length - 1).map((n) => ({ header: `Bearer ${key.slice(0, n)}`, valid: false, label: 'admin key truncated' })),
    fc.constantFrom(
      { header: `Bearer ${key}x`, valid: false, label: 'admin key extended' },
      { header: `bearer ${key}`, valid: true, label: 'lower-case scheme' },
      { header: `BEARER ${key}`, valid: true, label: 'upper-case scheme' },
      { header: `Bearer  ${key}`, valid: true, label: 'two spaces (RFC 9110: 1*SP)' },
      { header: `Bearer:${key}`, valid: false, label: 'colon instead of a space' },
      { header: `BearerX${key}`, valid: false, label: 'no separator' },
      { header: `Bearers ${key}`, valid: false, label: 'another scheme' },
      { header: `Bearer ${key} ${key}`, valid: false, label: 'two tokens' },
      { header: `Bearer ${key},Bearer ${key}`, valid: false, label: 'comma list' },
      { header: `Basic ${btoa(`admin:${key}`)}`, valid: false, label: 'basic' },
      { header: key, valid: false, label: 'no scheme' },
      { header: 'Bearer', valid: false, label: 'scheme only' },
      { header: 'Bearer ', valid: false, label: 'scheme and space' },
      { header: `Bearer ${'x'.repeat(100_000)}`, valid: false, label: 'very long' },
      { header: `Bearer sk-${'a'.repeat(600)}`, valid: false, label: 'long sk-' },
      { header: `Bearer ${key.toUpperCase()}`, valid: false, label: 'upper-case key' },
      { header: `Bearer ${tokens.jwt}`, valid: true, label: 'valid JWT' },
      { header: `Bearer ${tokens.jwt.split('.').slice(0, 2).join('.')}.`, valid: false, label: 'JWT without signature' },
      { header: `Bearer ${tokens.jwt}x`, valid: false, label: 'JWT with a changed signature' },
      { header: `Bearer ${tokens.jwt}.${tokens.jwt}`, valid: false, label: 'two JWTs' },
      { header: 'Bearer a.b.c', valid: false, label: 'three junk parts' },
      { header: 'Bearer ..', valid: false, label: 'empty parts' },
      { header: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', valid: false, label: 'alg none' },
    ),
    fc.constantFrom(...tokens.signed.invalid).map((t) => ({ header: `Bearer ${t}`, valid: false, label: `unusable JWT #${tokens.signed.invalid.indexOf(t)} of signedJwts()` })),
    fc.constantFrom(...tokens.signed.valid).map((t) => ({ header: `Bearer ${t}`, valid: true, label: `usable JWT #${tokens.signed.valid.indexOf(t)} of signedJwts()` })),
    fc.tuple(fc.nat(), fc.constantFrom('A', '_', '-', '=', '.', '')).map(([i, c]) => {
      const parts = tokens.jwt.split('.');
      const which = i % 3;
      const part = parts[which]!;
      const at = Math.floor(i / 3) % Math.max(1, part.length);
      const changed = part.slice(0, at) + c + part.slice(at + 1);
      parts[which] = changed;
      const token = parts.join('.');
      return { header: `Bearer ${token}`, valid: token === tokens.jwt, label: 'JWT with one character changed' };
    }),
  );
}

/** HS256 over header and payload given as JSON text, so that any claim (1e400, a crit header) can be signed. */
function hs256(header: string, payload: string, secret: string = JWT_SECRET): string {
  const b64 = (text: string) => Buffer.from(text).toString('base64url');
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

async function signedJwts(adminId: string, disabledId: string): Promise<{ valid: string[]; invalid: string[] }> {
  const now = Math.floor(Date.now() / 1000);
  const exp = now + 3600;
  const hs = '{"alg":"HS256"}';
  const sign = (payload: Record<string, unknown>, header: Record<string, unknown> = { alg: 'HS256' }) =>
    new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(utf8(JWT_SECRET));
  // Signed with the configured secret and HS256, with a known `sub` and a future `exp`: whatever
  // else the header or payload holds, these are usable (nothing is fetched from `jku`).
  const valid = [
    hs256('{"alg":"HS256","jku":"http://127.0.0.1:1/jwks","kid":"k"}', JSON.stringify({ sub: adminId, exp })),
    hs256(hs, `{"sub":"${adminId}","exp":${exp},"__proto__":{"sub":"x"}}`),
    hs256(hs, `{"sub":"${adminId}","exp":${exp},"aud":"${'x'.repeat(3000)}"}`),
    hs256(hs, `{"sub":"${adminId}","exp":${exp},"d":${'['.repeat(2000)}${']'.repeat(2000)}}`),
    // A UUID is case-insensitive: the subject in capitals is the same principal (on both databases).
    hs256(hs, JSON.stringify({ sub: adminId.toUpperCase(), exp })),
  ];
  // Not here: `"exp":1e400` parses to Infinity and is accepted as never expiring; only the key
  // holder can sign one, so it is no refusal to test.
  const invalid = [
    await sign({ sub: adminId }), // no exp
    await sign({ sub: adminId, exp: now - 3600 }),
    await sign({ sub: adminId, exp, nbf: now + 3600 }),
    await sign({ sub: crypto.randomUUID(), exp }),
    await sign({ sub: 'not-a-uuid', exp }),
    await sign({ sub: `${adminId}\u0000`, exp }),
    await sign({ sub: 12345, exp }),
    await sign({ sub: [adminId], exp }),
    await sign({ sub: adminId, exp: 'tomorrow' }),
    await sign({ sub: disabledId, exp }),
    await sign({ sub: '', exp }),
    hs256(hs, JSON.stringify({ sub: adminId, exp }), 'another-secret-0123456789abcdefghijklmnop'),
    hs256('{"alg":"HS512"}', JSON.stringify({ sub: adminId, exp })),
    hs256('{"alg":"none"}', JSON.stringify({ sub: adminId, exp })),
    hs256('{"alg":"HS256","crit":["x-unknown"],"x-unknown":1}', JSON.stringify({ sub: adminId, exp })),
    hs256('{"alg":"HS256","kid":"platform","b64":false,"crit":["b64"]}', JSON.stringify({ sub: adminId, exp })),
    hs256(hs, `{"sub":"${adminId}","exp":-1e400}`),
    hs256(hs, `{"sub":"${adminId}","exp":${exp},"sub":"${crypto.randomUUID()}"}`),
    hs256(hs, 'null'),
    hs256(hs, '[]'),
    hs256(hs, '"x"'),
    hs256(hs, '{"sub":'),
    hs256('null', JSON.stringify({ sub: adminId, exp })),
    hs256('{', JSON.stringify({ sub: adminId, exp })),
    hs256(`${'['.repeat(5000)}`, JSON.stringify({ sub: adminId, exp })),
  ];
  return { valid, invalid };
}

// ---------------------------------------------------------------------------------------------

beforeAll(async () => {
  p = await startPlatform();
  const me = await must('GET', `${API}/me`);
  F.adminId = me.id;
  F.workspaceId = (await must('POST', `${API}/workspaces`, { name: 'fuzz-other' })).id;
  const agentAdmin = await principal(['AGENT_ADMIN']);
  F.keys = {
    agentAdmin: agentAdmin.key,
    agentUser: (await principal(['AGENT_USER'])).key,
    componentAdmin: (await principal(['COMPONENT_ADMIN'])).key,
    endpointAdmin: (await principal(['ENDPOINT_ADMIN'])).key,
    plain: (await principal([])).key,
    noAccess: (await principal(['AGENT_ADMIN'], { platformAccess: false })).key,
    outsider: (await principal(['AGENT_ADMIN', 'COMPONENT_ADMIN', 'ENDPOINT_ADMIN'], { workspaceIds: [F.workspaceId] })).key,
  };
  const agent = await must('POST', `${API}/agents`, { name: 'fuzz agent', desc: 'd', config: { model: 'scripted', maxTicks: 5 }, policy: { maxTicks: 3 }, metadata: { k: 'v', b: [1, 2] } }, agentAdmin.key);
  F.agentId = agent.id;
  // Runs go to an agent nothing changes, PAUSED: they stay queued, so that what a start answered
  // is what reads back (the engine's own progress is tested in test/runs/engine.test.ts).
  F.runAgentId = (await must('POST', `${API}/agents`, { name: 'fuzz runs', status: 'PAUSED' }, agentAdmin.key)).id;
  F.runId = (await must('POST', `${API}/agents/${F.runAgentId}/runs`, { input: { q: 1 } })).id;
  const component = await must('POST', `${API}/components`, { name: 'fuzz comp', kind: 'lowcode', elements: [{ name: 'a', code: 'return 1' }] });
  F.componentId = component.id;
  F.revisionId = component.latestRevision.id;
  F.digest = component.latestRevision.digest;
  F.validatorId = (await must('POST', `${API}/components`, { name: 'fuzz validator', kind: 'json-validator', schema: { type: 'object', properties: { a: { type: 'string', maxLength: 5 } } } })).id;
  F.endpointId = (await must('POST', `${API}/endpoints`, { name: 'fuzz ep', method: 'GET', path: '/fuzz', staticResponse: { status: 200, body: { ok: true } } })).id;
  // An active one, so that updates go through route conflicts and the definition index too.
  F.activeEndpointId = (await must('POST', `${API}/endpoints`, { name: 'fuzz active', method: 'POST', path: '/fuzz/a/:id', componentId: F.componentId, popResult: 'a' })).id;
  await must('POST', `${API}/endpoints/${F.activeEndpointId}/activate`);
  await must('POST', `${API}/endpoints/${(await must('POST', `${API}/endpoints`, { name: 'fuzz other', method: 'GET', path: '/fuzz/b', staticResponse: { status: 204 } })).id}/activate`);
  F.userId = (await must('POST', `${API}/users`, { name: 'fuzz user', email: 'fuzz-user@example.com', roles: ['AGENT_USER'], platformAccess: true })).id;
  F.serviceAccountId = (await must('POST', `${API}/service-accounts`, { name: 'fuzz sa', roles: ['ENDPOINT_INVOKE'], platformAccess: true })).id;
  F.apiKeyId = (await must('POST', `${API}/api-keys`, { principalId: F.userId, name: 'fuzz key' })).id;
  F.groupId = (await must('POST', `${API}/groups`, { name: 'fuzz group', memberIds: [F.userId] })).id;
});

afterAll(async () => {
  const total = [...statusCounts.values()].reduce((a, b) => a + b, 0);
  console.log(`fuzz-control-plane: ${total - checkReads} generated requests (+ ${checkReads} reads by the checks), by status ${JSON.stringify(Object.fromEntries([...statusCounts].sort(([a], [b]) => a - b)))}`);
  await p?.close();
  await p?.executor.close();
});

// ---------------------------------------------------------------------------------------------
// Properties

describe('fuzz: bodies on every POST/PATCH/PUT', () => {
  for (const target of TARGETS) {
    test(`${target.name}: conventions hold, rejected bodies change nothing, accepted ones read back`, async () => {
      const base = fromValue(target.base());
      const keys = target.keys?.() ?? [ADMIN_KEY];
      await fc.assert(
        fc.asyncProperty(arbBody(base, target.wraps()), fc.constantFrom(...keys), fc.option(arbOid, { nil: undefined }), fc.option(arbIfMatch, { freq: 3, nil: undefined }), async (body, key, oid, ifMatch) => {
          const req = bodyReq(target.method, target.path(), body, key);
          if (oid !== undefined) req.headers['x-svc-oid'] = oid;
          if (ifMatch !== undefined && target.method === 'PATCH') req.headers['if-match'] = ifMatch;
          await checkBodyRequest(target, req);
        }),
        fcOptions(RUNS.bodiesPerTarget),
      );
    }, 60_000);
  }

  test('deep nesting: within 128 levels a body is judged on its content, beyond it is 400, never 5xx', async () => {
    const shapes = TARGETS.flatMap((t) => t.wraps().map((wrap) => ({ t, wrap })));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...shapes), fc.integer({ min: 1, max: 140 }), fc.constantFrom('arr' as const, 'obj' as const, 'mixed' as const), async ({ t, wrap }, depth, style) => {
        const text = wrap(nest(depth, style, '"\\ud83d\\ude00"'));
        const req = bodyReq(t.method, t.path(), { bytes: utf8(text), contentType: 'application/json', chunked: false });
        await checkBodyRequest(t, req);
      }),
      fcOptions(RUNS.deepNesting),
    );
  }, 60_000);
});

const SCHEMA_KEYWORDS = [
  'type', 'properties', 'items', 'prefixItems', 'required', 'enum', 'const', 'pattern', 'patternProperties', 'minLength', 'maxLength',
  'minimum', 'maximum', 'exclusiveMinimum', 'multipleOf', '$ref', '$defs', 'definitions', 'anyOf', 'allOf', 'oneOf', 'not', 'if', 'then',
  'else', 'additionalProperties', 'format', 'dependentRequired', 'uniqueItems', 'contains', 'minItems', 'maxItems', 'propertyNames',
  '$id', '$schema', '$anchor', '$dynamicRef', 'unevaluatedProperties', 'default', 'description', '__proto__', 'constructor',
];
const { schema: arbSchema } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(true, false, {}, { type: 'object' }, { $ref: '#' }, { type: 'string', pattern: '([' }, { type: 'string', pattern: '(a+)+$' }, { pattern: '\\p{L}' }, { format: 'regex' }),
    fc.dictionary(
      fc.constantFrom(...SCHEMA_KEYWORDS),
      fc.oneof(
        tie('schema'),
        fc.constantFrom('string', 'number', 'integer', 'object', 'array', 'boolean', 'null', 'foo', ['string', 'null'], [], 5, -1, 0.5, 1e308, '#', '#/$defs/a', '#/properties/a', 'http://127.0.0.1:1/s', 'email', 'date-time', 'uri', '^a+$', '(?<n>a)\\k<n>', null),
        fc.array(tie('schema'), { maxLength: 2 }),
        fc.dictionary(fc.constantFrom('a', 'b', '__proto__', ''), tie('schema'), { maxKeys: 2 }),
      ),
      { maxKeys: 4 },
    ),
  ),
}));

const CODE_PIECES = [
  'return', ' ', 'input', ';', '{', '}', '(', ')', 'api.result("x", 1)', 'await', 'async', '=>', 'import("node:fs")', 'require("x")', 'while(true){}',
  '`', '${', '"', "'", '//', '/*', '*/', 'export default', 'function', 'x', '1', '.', 'new', 'class', 'yield', 'this', 'eval("1")',
  'process.exit(1)', 'throw 1', '\u2028', '\u0000', 'debugger', '#!', '<!--', '-->', '\n', 'results.a', 'import x from "lodash"', 'import fs from "node:fs"',
  'export', 'const', 'let', '=', ',', '[', ']', 'async (api) =>', '\ud800', 'arguments', 'super', 'with', 'label:', 'break label',
];
const arbCode = fc.oneof(fc.array(fc.constantFrom(...CODE_PIECES), { maxLength: 12 }).map((parts) => parts.join('')), fc.string({ maxLength: 30 }), fc.constantFrom('return 1', 'export default async () => 1', '}; x(); {', 'export default 1', 'a'.repeat(300 * 1024)));

describe('fuzz: schemas and code', () => {
  let n = 0;
  test('random guard schemas: create, validate, activate, disable, delete keep the conventions', async () => {
    await fc.assert(
      fc.asyncProperty(arbSchema, fc.constantFrom('GET', 'POST'), async (schema, method) => {
        const path = `/guard/${++n}`;
        const create = jsonReq('POST', `${API}/endpoints`, { name: 'g', method, path, guard: { type: 'inline', schema }, staticResponse: { status: 200, body: { ok: true } } });
        const created = await send(create);
        checkConventions(create, created);
        if (created.status !== 201) return;
        const id = (created.json as { id: string }).id;
        for (const step of ['validate', 'activate', 'disable']) {
          const req = jsonReq('POST', `${API}/endpoints/${id}/${step}`);
          checkConventions(req, await send(req));
        }
        const openapi = jsonReq('GET', `${API}/endpoints/${id}/openapi`);
        checkConventions(openapi, await send(openapi));
        const del = jsonReq('DELETE', `${API}/endpoints/${id}`);
        const deleted = await send(del);
        checkConventions(del, deleted);
        if (deleted.status !== 204) fail(del, deleted, 'a disabled endpoint could not be deleted');
      }),
      fcOptions(RUNS.schemas),
    );
  }, 60_000);

  test('random json-validator schemas and element code / node sources: 201 or 422, never 5xx', async () => {
    const body = fc.oneof(
      arbSchema.map((schema) => ({ name: 'v', kind: 'json-validator', schema })),
      fc.array(arbCode, { minLength: 1, maxLength: 2 }).map((codes) => ({ name: 'l', kind: 'lowcode', elements: codes.map((code, i) => ({ name: `e${i}`, code })) })),
      fc.tuple(arbCode, fc.array(fc.record({ name: fc.constantFrom('default', 'a', '1x', ''), visible: fc.boolean(), schema: arbSchema }, { requiredKeys: ['name'] }), { maxLength: 2 })).map(([source, results]) => ({ name: 'n', kind: 'node', source, results })),
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const req = jsonReq('POST', `${API}/components`, b);
        const before = await fingerprint();
        const seen = await send(req);
        checkConventions(req, seen);
        if (seen.status >= 400) {
          checkUnchanged(req, seen, before, await fingerprint());
          return;
        }
        const id = (seen.json as { id: string }).id;
        const del = jsonReq('DELETE', `${API}/components/${id}`);
        checkConventions(del, await send(del));
      }),
      fcOptions(RUNS.code),
    );
  }, 60_000);
});

describe('fuzz: list queries', () => {
  const callers = () => [ADMIN_KEY, F.keys.agentUser, F.keys.endpointAdmin, F.keys.componentAdmin, F.keys.outsider];
  let before: string[];
  beforeAll(async () => {
    before = await fingerprint();
  });

  for (const list of LISTS) {
    test(`${list.name}: random list parameters give a page or a 400 pointing into /query`, async () => {
      await fc.assert(
        fc.asyncProperty(arbQuery(list), fc.constantFrom(...callers()), async (query, key) => {
          const path = list.path();
          const req: Req = { method: 'GET', path: `${path}${path.includes('?') ? '&' : '?'}${query}`, headers: auth(key) };
          await checkListRequest(req, key);
        }),
        fcOptions(RUNS.queriesPerList),
      );
    }, 60_000);
  }

  test('raw query strings without grammar, on every list', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...LISTS), arbRawQuery, async (list, query) => {
        const path = list.path();
        const req: Req = { method: 'GET', path: `${path}${path.includes('?') ? '&' : '?'}${query}`, headers: auth() };
        await checkListRequest(req, ADMIN_KEY);
      }),
      fcOptions(RUNS.rawQueries),
    );
  }, 60_000);

  test('listing changed nothing', async () => {
    const after = await fingerprint();
    // The audit count and everything else: reads are reads.
    expect(after).toEqual(before);
  });
});

describe('fuzz: path segments on every /{id} route', () => {
  test('a segment that names nothing is 4xx problem+json and changes nothing; only a fixture id answers 2xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ID_ROUTES).chain((route) => fc.tuple(fc.constant(route), fc.oneof({ weight: 6, arbitrary: arbSegment }, { weight: 1, arbitrary: arbForeignId(route) }))), async ([route, segment]) => {
        const own = route.own();
        // Spellings of a fixture id are sent only to routes that cannot delete or change it.
        const target = own[0];
        if (segment.mayName && (target === undefined || route.method !== 'GET')) return;
        const text = spell(segment, target ?? '');
        const req = jsonReq(route.method, route.path(text), route.body?.());
        // Dot segments (`.`, `..`, `%2e%2e`) are resolved by the URL itself: another route is addressed.
        const resolved = new URL(`http://localhost${req.path}`).pathname === req.path;
        const before = await fingerprint();
        const seen = await send(req);
        checkConventions(req, seen);
        if (!resolved) {
          if (seen.status >= 400) checkUnchanged(req, seen, before, await fingerprint());
        } else if (seen.status < 300) {
          let decoded: string;
          try {
            decoded = decodeURIComponent(text);
          } catch {
            decoded = text;
          }
          // A trailing slash names the same resource (Elysia's default, not strict paths).
          decoded = decoded.replace(/\/$/, '');
          if (!own.some((id) => id.toLowerCase() === decoded.toLowerCase())) fail(req, seen, `a path segment that names no ${route.path(':id')} answered ${seen.status}`);
        } else {
          checkUnchanged(req, seen, before, await fingerprint());
          if (seen.status !== 404 && seen.status !== 400 && seen.status !== 405 && seen.status !== 414) fail(req, seen, `an unknown id answered ${seen.status} (404 expected: DESIGN §3)`);
        }
      }),
      fcOptions(RUNS.paths),
    );
  }, 60_000);
});

describe('fuzz: methods', () => {
  test('a method a path does not have is 404/405 problem+json and changes nothing', async () => {
    const paths = [
      ...ID_ROUTES.map((route) => route.path(route.own()[0] ?? crypto.randomUUID())),
      ...LISTS.map((list) => list.path()),
      `${API}/endpoints/settings`, `${API}/endpoints/openapi`, `${API}/me`, `${API}/auth/token`, `${API}/users`, `${API}/service-accounts`, `${API}/groups`, '/healthz', '/readyz', `${API}`, '/', `${API}/nope`,
    ];
    // Bun's Request turns some methods into others (FOO → GET, patch → PATCH): only those it keeps.
    const methods = ['PUT', 'OPTIONS', 'FOO', 'PROPFIND', 'M-SEARCH', 'HEAD', 'REPORT', 'PURGE'].filter((m) => new Request('http://localhost/', { method: m }).method === m);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.constantFrom(...methods), fc.boolean(), async (path, method, withBody) => {
        if (method === 'PUT' && path.endsWith('/endpoints/settings')) return;
        const req = jsonReq(method, path, withBody && method !== 'HEAD' ? { name: 'method-fuzz' } : undefined);
        const before = await fingerprint();
        const seen = await send(req);
        checkConventions(req, seen);
        if (method === 'HEAD') {
          // RFC 9110 §9.3.2: HEAD is GET without the body, status included.
          const get = await send({ ...req, method: 'GET' });
          if (seen.status !== get.status) fail(req, seen, `HEAD answered ${seen.status} where GET answers ${get.status}`);
          return;
        }
        if (seen.status !== 404 && seen.status !== 405) fail(req, seen, `${method} on a path without it answered ${seen.status}`);
        checkUnchanged(req, seen, before, await fingerprint());
      }),
      fcOptions(RUNS.methods),
    );
  }, 60_000);
});

describe('fuzz: Authorization headers', () => {
  test('anything but a usable credential is 401 problem+json and changes nothing', async () => {
    const minted = await must('POST', `${API}/auth/token`, { ttlSeconds: 3600 });
    const disabled = await principal(['AGENT_ADMIN']);
    await must('PATCH', `${API}/users/${disabled.id}`, { status: 'DISABLED' });
    const tokens = { jwt: minted.token as string, signed: await signedJwts(F.adminId, disabled.id) };
    const operations: { method: string; path: () => string; body?: () => unknown }[] = [
      { method: 'GET', path: () => `${API}/me` },
      { method: 'GET', path: () => `${API}/agents` },
      { method: 'GET', path: () => `${API}/agents/${F.agentId}` },
      { method: 'PATCH', path: () => `${API}/agents/${F.agentId}`, body: () => ({ metadata: { auth: 'fuzz' } }) },
      { method: 'POST', path: () => `${API}/agents`, body: () => ({ name: 'auth-fuzz' }) },
      { method: 'POST', path: () => `${API}/agents/${F.agentId}/runs`, body: () => ({}) },
      { method: 'GET', path: () => `${API}/agents/runs/${F.runId}/events?limit=1` },
      { method: 'PUT', path: () => `${API}/endpoints/settings`, body: () => ({ executionPolicy: { mode: 'CALLER' } }) },
      { method: 'POST', path: () => `${API}/api-keys`, body: () => ({ name: 'auth-fuzz' }) },
      { method: 'POST', path: () => `${API}/auth/token` },
      { method: 'GET', path: () => `${API}/audit?limit=1` },
      { method: 'DELETE', path: () => `${API}/api-keys/${F.apiKeyId}` },
    ];
    await fc.assert(
      fc.asyncProperty(arbAuth(tokens), fc.constantFrom(...operations), fc.option(fc.constantFrom('%00', 'access_token', 'token', 'authorization', 'bearer'), { freq: 4, nil: null }), async (authCase, op, urlParam) => {
        // A usable credential would really change things; only the refusals are under test here.
        if (authCase.valid && op.method !== 'GET') return;
        // Credentials are read from the Authorization header only (DESIGN §2): one in the URL is no credential.
        const path = urlParam === null ? op.path() : `${op.path()}${op.path().includes('?') ? '&' : '?'}${urlParam}=${ADMIN_KEY}`;
        const req = jsonReq(op.method, path, op.body?.(), null);
        if (authCase.header !== null) req.headers.authorization = authCase.header;
        const before = await fingerprint();
        const seen = await send(req);
        checkConventions(req, seen);
        if (authCase.valid) {
          if (seen.status === 401) fail(req, seen, `a usable credential (${authCase.label}) was refused`);
          return;
        }
        if (seen.status !== 401) fail(req, seen, `an unusable credential (${authCase.label}${urlParam === null ? '' : ', a key in the URL'}) answered ${seen.status}, not 401`);
        checkUnchanged(req, seen, before, await fingerprint());
      }),
      fcOptions(RUNS.auth),
    );
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------
// What the properties found, each reduced to one request (regressions; all were bugs).

describe('found by fuzzing', () => {
  /** Sends one request and checks the conventions, returning what was seen. */
  async function once(req: Req): Promise<Seen> {
    const seen = await send(req);
    checkConventions(req, seen);
    return seen;
  }

  test('an API key in the URL (`?%00=<key>`, no Authorization header) does not authenticate', async () => {
    // DESIGN §2: credentials are `Authorization: Bearer <token>`; src/http/plugin.ts says tokens are
    // read from the header only ("a credential in a URL ends up in logs").
    const seen = await once({ method: 'GET', path: `${API}/me?%00=${ADMIN_KEY}`, headers: {} });
    expect(seen.status).toBe(401);
    const list = await once({ method: 'GET', path: `${API}/audit?%00=${ADMIN_KEY}`, headers: {} });
    expect(list.status).toBe(401);
  });

  test('`Authorization: Bearer  <key>` (two spaces, allowed by RFC 9110 §11.4) is accepted alike on GET and on a POST with a body', async () => {
    const header = { authorization: `Bearer  ${ADMIN_KEY}` };
    const post = await once({ method: 'POST', path: `${API}/auth/token`, headers: { ...header, 'content-type': 'application/json' }, body: { bytes: utf8('{}') } });
    const get = await once({ method: 'GET', path: `${API}/me`, headers: header });
    expect(post.status).toBe(200);
    expect(get.status).toBe(post.status);
  });

  test('a malformed scheme (`Bearer:<key>`, `BearerX<key>`) is not a bearer credential', async () => {
    for (const authorization of [`Bearer:${ADMIN_KEY}`, `BearerX${ADMIN_KEY}`]) {
      const seen = await once({ method: 'GET', path: `${API}/me`, headers: { authorization } });
      expect({ authorization, status: seen.status }).toEqual({ authorization, status: 401 });
    }
  });

  test('a one-argument coalesce in `fields` is that argument (SQLite\'s COALESCE wants two)', async () => {
    // GET /api/v1/agents?fields=[{"coalesce":["name"],"as":"n"}] was a 500
    // (SQLiteError: wrong number of arguments to function COALESCE()).
    for (const fields of [[{ coalesce: ['name'], as: 'n' }], [{ fn: 'coalesce', args: ['name'], as: 'n' }]]) {
      const seen = await once({ method: 'GET', path: `${API}/agents?fields=${enc(JSON.stringify(fields))}`, headers: auth() });
      expect({ fields, status: seen.status < 500 }).toEqual({ fields, status: true });
    }
  });

  test('GET /api-keys?principalId=<not one uuid> is 400 INVALID_QUERY pointing at it', async () => {
    // Was a 500 (Error: expected a UUID). DESIGN §3: 400 for a
    // malformed query parameter.
    for (const query of ['principalId=abc', 'principalId=', 'principalId=abc&principalId=def']) {
      const seen = await once({ method: 'GET', path: `${API}/api-keys?${query}`, headers: auth() });
      expect({ query, status: seen.status, json: seen.json }).toMatchObject({ query, status: 400, json: { code: 'INVALID_QUERY', errors: [{ pointer: '/query/principalId' }] } });
    }
  });

  test('a lone surrogate (which no text column can store) is refused with 422, never answered as sent and stored as U+FFFD', async () => {
    // Was: POST /api/v1/components {"name":"\udc00y",…} → 201 {"name":"\udc00y",…}, GET → {"name":"\ufffdy"};
    // the same for agents, endpoints and workspaces. Refused now, as NUL is, with the pointer.
    const bodies: [string, string, string][] = [
      [`${API}/components`, '{"name":"\\udc00y","kind":"lowcode","elements":[{"name":"a","code":"return 1"}]}', '/name'],
      [`${API}/agents`, '{"name":"ok","desc":"x\\ud800"}', '/desc'],
      [`${API}/workspaces`, '{"name":"\\udbff"}', '/name'],
    ];
    for (const [path, text, pointer] of bodies) {
      const created = await once({ method: 'POST', path, headers: { ...auth(), 'content-type': 'application/json' }, body: { bytes: utf8(text) } });
      expect({ path, status: created.status, json: created.json }).toMatchObject({ path, status: 422, json: { code: 'VALIDATION_FAILED', errors: [{ pointer }] } });
    }
    // A well-formed pair (an emoji, escaped) is stored and read back as sent.
    const emoji = await once({ method: 'POST', path: `${API}/agents`, headers: { ...auth(), 'content-type': 'application/json' }, body: { bytes: utf8('{"name":"\\ud83d\\ude00"}') } });
    expect(emoji.status).toBe(201);
    expect((await call<{ name: string }>('GET', `${API}/agents/${(emoji.json as { id: string }).id}`)).body.name).toBe('\u{1F600}');
  });
});
