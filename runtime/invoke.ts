// The runtime's request path, in the spec's order: authenticate and check the role, match method
// and path, validate input, resolve the component and runtime, execute within the deadline, answer
// in the configured mode. Every response carries x-svc-oid; every invocation an x-execution-id.
import { type CredentialResolver, hasAnyRole, type Principal } from '../src/core/identity/index.ts';
import { operationId, ProblemError, databaseUnavailable, problemResponse } from '../src/core/http/index.ts';
import { isDatabaseUnavailable } from '../src/core/db/index.ts';
import type { Logger } from '../src/core/index.ts';
import { HOST_WAIT_LIMIT_MS, type Executor } from './executor/contract/index.ts';
import type { IndexHolder, CompiledEndpoint } from './index/index.ts';
import { readBody, sanitizeHeaders, type ParsedBody } from './input.ts';
import { resolveIdentity, type ExecutionIdentity } from './identity.ts';
import { asAccount } from './run-as.ts';
import { json, outcomeResponse, staticResponse, type ResponseHeaders } from './respond.ts';
import type { InvocationRecorder } from './recorder/index.ts';
import type { PlatformCaller } from './platform-call.ts';
import { ComponentLog } from './component-log.ts';
import { queryToObject, type QueryObject } from './guard/index.ts';
import type { RequestObserver } from './observe.ts';

export interface InvokerDeps {
  index: IndexHolder;
  credentials: CredentialResolver;
  executor: Executor;
  recorder: InvocationRecorder;
  platform: PlatformCaller;
  log: Logger;
  /** Access lines and request metrics. */
  observer: RequestObserver;
}

const INVOKE_ROLES = ['ENDPOINT_INVOKE'] as const;

/** The part of Bun's server an invocation needs: its request's idle timeout. */
export interface RequestTimeouts {
  timeout(request: Request, seconds: number): void;
}

/**
 * Seconds a connection may sit silent while its invocation runs: the deadline, plus a wait for a
 * host to start (HOST_WAIT_LIMIT_MS), plus room for the Worker stop grace and the answer. Bun's default (10 s) would otherwise close the connection of
 * a component still inside its deadline, with no response at all.
 */
const idleSecondsFor = (timeoutMs: number): number => Math.ceil((timeoutMs + HOST_WAIT_LIMIT_MS) / 1000) + 5;

const NO_BODY: ParsedBody = { kind: 'none' };
const EMPTY_INPUTS: Record<string, unknown> = Object.freeze({});

/**
 * Template inputs shorter than this (as JSON) are serialized with the rest of the call: splicing
 * made text in costs more than serializing a few small values again (~1 µs per call measured).
 */
const SPLICED_INPUTS_MIN_CHARS = 1024;

/**
 * Each definition's template inputs as JSON when they are large enough to be worth keeping made
 * (null when not), made at its first invocation: they are the same for every call, and index
 * builds stay as cheap as they were. Definitions are immutable; a new version is a new object.
 */
const inputsJsons = new WeakMap<CompiledEndpoint['definition'], string | null>();
function inputsJsonOf(d: CompiledEndpoint['definition']): string | null {
  let json = inputsJsons.get(d);
  if (json === undefined) {
    const made = JSON.stringify(d.inputs ?? EMPTY_INPUTS);
    json = made.length >= SPLICED_INPUTS_MIN_CHARS ? made : null;
    inputsJsons.set(d, json);
  }
  return json;
}

/** One invocation's request facts, as matched. */
interface Call {
  request: Request;
  endpoint: CompiledEndpoint;
  pathname: string;
  params: Record<string, string>;
  search: string;
  caller: Principal;
  settings: NonNullable<IndexHolder['current']>['settings'];
  h: ResponseHeaders;
}

interface RunResult {
  response: Response;
  executionAccountId: string | null;
}

export class Invoker {
  private readonly componentLog: ComponentLog;

  constructor(private readonly d: InvokerDeps) {
    this.componentLog = new ComponentLog(d.log);
  }

  /**
   * Answers one request. Synchronous (no promise at all) up to the first real wait: a cached
   * credential, a static response or a guard failure returns the Response itself.
   */
  handle(request: Request, oid = operationId(request.headers.get('x-svc-oid')), server?: RequestTimeouts, url = request.url, started = performance.now()): Response | Promise<Response> {
    let token: string | undefined;
    let caller: Principal | undefined;
    try {
      token = bearerToken(request.headers.get('authorization'));
      caller = this.d.credentials.cachedApiKey(token);
      if (caller) mayInvoke(caller);
    } catch (error) {
      return this.unmatched(request, this.problem(error, oid), started, oid);
    }
    return caller ? this.matched(request, url, oid, caller, started, server) : this.authenticated(request, url, oid, token, started, server);
  }

  /** The credential is not cached: look it up first. */
  private async authenticated(request: Request, url: string, oid: string, token: string | undefined, started: number, server?: RequestTimeouts): Promise<Response> {
    let caller: Principal;
    try {
      caller = await this.d.credentials.authenticate(token);
      mayInvoke(caller);
    } catch (error) {
      return this.unmatched(request, this.problem(error, oid), started, oid);
    }
    return this.matched(request, url, oid, caller, started, server);
  }

  /** Method and path match, then the invocation, recorded once answered. */
  private matched(request: Request, url: string, oid: string, caller: Principal, started: number, server?: RequestTimeouts): Response | Promise<Response> {
    const { pathname, search } = splitUrl(url);
    const index = this.d.index.current;
    // HEAD is answered as GET without the body (Bun sends the head only); the component sees HEAD.
    const match = index?.router.match(request.method === 'HEAD' ? 'GET' : request.method, pathname) ?? null;
    if (!index || !match) {
      return this.unmatched(request, problemResponse(new ProblemError(404, 'NOT_FOUND', `No active Endpoint matches ${request.method} ${pathname}`), oid), started, oid);
    }
    const endpoint = match.value;
    if (server && !endpoint.prepared) server.timeout(request, idleSecondsFor(endpoint.definition.timeoutMs));
    const h: ResponseHeaders = { oid, executionId: crypto.randomUUID() };
    const call: Call = { request, endpoint, pathname, params: match.params, search, caller, settings: index.settings, h };
    let result: RunResult | Promise<RunResult>;
    try {
      result = endpoint.hasBody ? readBody(request).then((body) => this.afterBody(call, body)) : this.afterBody(call, NO_BODY);
    } catch (error) {
      result = this.failed(call, error);
    }
    return result instanceof Promise
      ? result.then((r) => this.recorded(call, r, started), (error: unknown) => this.recorded(call, this.failed(call, error), started))
      : this.recorded(call, result, started);
  }

  private failed(c: Call, error: unknown): RunResult {
    // The client went away before its request was read: nobody is answered, and it is no server
    // error. Recorded as 499 (the de facto "client closed request"), counted with the 4xx.
    if (c.request.signal.aborted && !(error instanceof ProblemError)) {
      const gone = new ProblemError(499, 'CLIENT_CLOSED_REQUEST', 'The client closed the connection before its request was read');
      return { response: problemResponse(gone, c.h.oid, { 'x-execution-id': c.h.executionId }), executionAccountId: null };
    }
    return { response: this.problem(error, c.h.oid, { executionId: c.h.executionId, endpointId: c.endpoint.id }), executionAccountId: null };
  }

  /** A request answered before an Endpoint matched it (refused credential or role, no route). */
  private unmatched(request: Request, response: Response, started: number, oid: string): Response {
    this.d.observer.answered(request.method, undefined, response.status, started, oid);
    return response;
  }

  private recorded(c: Call, result: RunResult, started: number): Response {
    const { endpoint, h } = c;
    const status = result.response.status;
    const durationMs = performance.now() - started;
    this.d.observer.invoked(c.request.method, endpoint.definition.path, status, durationMs, h.oid, endpoint.id, h.executionId);
    this.d.recorder.record({
      at: Date.now(),
      endpointId: endpoint.id,
      workspaceId: endpoint.definition.workspaceId,
      initiatorId: c.caller.id,
      executionAccountId: result.executionAccountId,
      status,
      durationMs,
      oid: h.oid,
      executionId: h.executionId,
    });
    return result.response;
  }

  /** Input validation, then the static response or the component. */
  private afterBody(c: Call, body: ParsedBody): RunResult | Promise<RunResult> {
    const { endpoint, h } = c;
    const query: QueryObject = c.search.length === 0 ? {} : queryToObject(new URLSearchParams(c.search));
    if (endpoint.guard) {
      const failure = this.guardFailure(endpoint, body, query);
      if (failure) return { response: failure(h), executionAccountId: null };
    } else if (body.kind === 'malformed') {
      throw new ProblemError(400, 'MALFORMED_JSON', `The request body is not valid JSON: ${body.message}`);
    }

    if (endpoint.prepared) return { response: staticResponse(endpoint.prepared, h), executionAccountId: null };
    if (!endpoint.code) {
      throw new ProblemError(503, 'COMPONENT_NOT_READY', 'The Endpoint\'s component has no selected ready revision');
    }
    const found = resolveIdentity(c.caller, endpoint.definition.executionPolicy, c.settings, (id) => this.principal(id));
    return found instanceof Promise
      ? found.then((identity) => this.execute(c, body, query, identity))
      : this.execute(c, body, query, found);
  }

  private async execute(c: Call, body: ParsedBody, query: QueryObject, identity: ExecutionIdentity): Promise<RunResult> {
    const { h, request } = c;
    // A service account runs only code approved for it (spec, Authentication rule 9, for every account).
    const endpoint = identity.account ? asAccount(c.endpoint, identity.account) : c.endpoint;
    const d = endpoint.definition;
    const inputsJson = inputsJsonOf(d);
    const outcome = await this.d.executor.execute({
      revision: endpoint.code!,
      input: {
        method: request.method,
        path: c.pathname,
        params: { ...c.params },
        query,
        body: body.kind === 'json' ? body.value : undefined,
        headers: sanitizeHeaders(request.headers),
        inputs: d.inputs ?? EMPTY_INPUTS,
      },
      ...(body.kind === 'json' ? { bodyJson: body.text } : {}),
      ...(inputsJson !== null ? { inputsJson } : {}),
      results: endpoint.results,
      executionId: h.executionId,
      oid: h.oid,
      currentUser: identity.currentUser,
      timeoutMs: d.timeoutMs,
      platform: (call) => this.d.platform.call({ executorId: identity.executorId, initiatorId: c.caller.id, executionId: h.executionId }, h.oid, call),
    });
    if (outcome.kind !== 'failed' && outcome.logs.length > 0) this.componentLog.write(endpoint.id, h, outcome.logs);
    const result = outcomeResponse(endpoint, outcome, h);
    const response = result instanceof ProblemError ? problemResponse(result, h.oid, { 'x-execution-id': h.executionId }) : result;
    return { response, executionAccountId: identity.executorId };
  }

  private principal(id: string): Principal | null | Promise<Principal | null> {
    const cached = this.d.credentials.cachedPrincipal(id);
    return cached !== undefined ? cached : this.d.credentials.principal(id);
  }

  /** Null when the input passes; else the validation-failure responder. */
  private guardFailure(endpoint: CompiledEndpoint, body: ParsedBody, query: QueryObject): ((h: ResponseHeaders) => Response) | null {
    const guard = endpoint.guard!;
    const d = endpoint.definition;
    if (body.kind === 'malformed') return this.failure(d.validationFailure, [{ pointer: '', message: `Malformed JSON: ${body.message}` }]);
    // A DELETE guard checks the body when one is sent, else the query (as for GET).
    if (endpoint.guardsBody || (body.kind === 'json' && endpoint.definition.method === 'DELETE')) {
      const value = body.kind === 'json' ? body.value : undefined;
      return guard.check(value) ? null : this.failure(d.validationFailure, guard.violations(value));
    }
    // A query guard's violations point into /query (DESIGN §3).
    const value = guard.coerceQuery(query);
    if (guard.check(value)) return null;
    return this.failure(d.validationFailure, guard.violations(value).map((v) => ({ ...v, pointer: `/query${v.pointer}` })));
  }

  private failure(configured: { status: number; body: unknown } | undefined, violations: { pointer: string; message: string }[]) {
    return (h: ResponseHeaders): Response => {
      if (configured) return json(configured.status, configured.body, h);
      return problemResponse(
        new ProblemError(400, 'VALIDATION_FAILED', 'The input does not match the Endpoint\'s guard', { errors: violations }),
        h.oid,
        { 'x-execution-id': h.executionId },
      );
    };
  }

  /** The problem response of `error`; `invocation` when an Endpoint had matched (its lines name it). */
  private problem(error: unknown, oid: string, invocation?: { executionId: string; endpointId: string }): Response {
    const headers = invocation ? { 'x-execution-id': invocation.executionId } : undefined;
    if (error instanceof ProblemError) return problemResponse(error, oid, headers);
    if (isDatabaseUnavailable(error)) {
      this.d.log.warn('database unavailable', { error: String(error), oid, ...invocation });
      return problemResponse(databaseUnavailable(), oid, headers);
    }
    this.d.log.child({ oid, ...invocation }).error('runtime request failed', error);
    return problemResponse(new ProblemError(500, 'INTERNAL', 'An internal error occurred'), oid, headers);
  }
}

/** Path and query from a request URL without building a URL object on the hot path. */
export function splitUrl(url: string): { pathname: string; search: string } {
  const schemeEnd = url.indexOf('://');
  const pathStart = url.indexOf('/', schemeEnd === -1 ? 0 : schemeEnd + 3);
  if (pathStart === -1) return { pathname: '/', search: '' };
  const q = url.indexOf('?', pathStart);
  const hash = url.indexOf('#', pathStart);
  const end = hash === -1 ? url.length : hash;
  return q === -1 || q > end
    ? { pathname: url.slice(pathStart, end), search: '' }
    : { pathname: url.slice(pathStart, q), search: url.slice(q + 1, end) };
}

/**
 * A human user may invoke with platform access off; a service account must have it (spec,
 * Authentication rule 3). Disabled users and inactive accounts never get here (401).
 */
function mayInvoke(caller: Principal): void {
  if (!hasAnyRole(caller, INVOKE_ROLES)) throw new ProblemError(403, 'FORBIDDEN', 'Invoking Endpoints needs ENDPOINT_INVOKE or INSTANCE_ADMIN');
  if (caller.kind === 'SERVICE_ACCOUNT' && !caller.platformAccess) {
    throw new ProblemError(403, 'PLATFORM_ACCESS_DISABLED', 'A service account needs platform access to invoke Endpoints');
  }
}

const BEARER = /^bearer /i;

function bearerToken(header: string | null): string | undefined {
  if (!header || !BEARER.test(header)) return undefined;
  return header.slice(7).trim() || undefined;
}
