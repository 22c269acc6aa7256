// api.platform(method, path, body): a control-plane call made as the execution identity, with a
// short-lived token minted for that identity, so the control plane's own checks decide (spec rule 5).
import { EXECUTION_SCOPE, type JwtService } from '../src/core/identity/index.ts';
import { TtlCache } from '../src/core/lib/index.ts';
import type { PlatformCall, PlatformReply } from './executor/contract/index.ts';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const TOKEN_TTL_SECONDS = 120;
/** Reuse a minted token for a while (signing per call would be wasted work), well before it expires. */
const TOKEN_REUSE_MS = 60_000;

export interface PlatformCallerOptions {
  jwt: JwtService;
  baseUrl: string;
  /** In-process control plane (embedded mode); without it the call goes over HTTP to baseUrl. */
  handle?: (request: Request) => Promise<Response> | Response;
}

/** Who a call acts as (the execution account) and for which invocation; the token says so. */
export interface PlatformIdentity {
  executorId: string;
  initiatorId: string;
  executionId: string;
}

/** Only resolves the path; never sent anywhere. */
const PARSE_BASE = 'http://platform.invalid';

/**
 * The path as the URL parser normalises it (pathname and query), or undefined when it is not a
 * control-plane path: checking what the parser produces catches `..` however it is spelled
 * (`%2e%2e`, `.%2E`, a backslash, a tab inside), since that is the form the request is sent in.
 * Encoded slashes and backslashes are refused too: a later decoding step must not make new segments.
 */
function controlPlanePath(path: string): string | undefined {
  // The prefix keeps the origin fixed (no scheme, no `//host`); control characters are refused
  // rather than silently dropped by the parser.
  if (!path.startsWith('/api/v1/') || path.includes('\\') || /[\u0000-\u001f\u007f]/.test(path)) return undefined;
  let url: URL;
  try {
    url = new URL(path, PARSE_BASE);
  } catch {
    return undefined;
  }
  if (url.origin !== PARSE_BASE || !url.pathname.startsWith('/api/v1/') || /%(2f|5c)/i.test(url.pathname)) return undefined;
  return url.pathname + url.search;
}

export class PlatformCaller {
  private readonly tokens = new TtlCache<string, string>(TOKEN_REUSE_MS, 10_000);

  constructor(private readonly o: PlatformCallerOptions) {}

  async call(identity: PlatformIdentity, oid: string, call: PlatformCall): Promise<PlatformReply> {
    const method = String(call.method).toUpperCase();
    const path = String(call.path);
    if (!METHODS.has(method)) return { status: 400, body: { code: 'BAD_REQUEST', detail: `api.platform: unsupported method ${method}` } };
    const target = controlPlanePath(path);
    if (target === undefined) {
      return { status: 400, body: { code: 'BAD_REQUEST', detail: 'api.platform: the path must start with /api/v1/ and stay under it' } };
    }
    const headers: Record<string, string> = { authorization: `Bearer ${await this.token(identity)}`, 'x-svc-oid': oid };
    let body: string | undefined;
    if (call.body !== undefined && method !== 'GET') {
      body = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    const request = new Request(this.o.baseUrl + target, { method, headers, body });
    const response = this.o.handle ? await this.o.handle(request) : await fetch(request, { redirect: 'manual' });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text.length > 0 ? JSON.parse(text) : null;
    } catch {
      // not JSON: hand the text over
    }
    return { status: response.status, body: parsed };
  }

  /** One token per invocation (its calls share it): it names the initiator and the execution for the audit trail. */
  private async token(identity: PlatformIdentity): Promise<string> {
    const key = `${identity.executionId}:${identity.executorId}`;
    const cached = this.tokens.get(key);
    if (cached) return cached;
    const { token } = await this.o.jwt.mint(identity.executorId, TOKEN_TTL_SECONDS, {
      scope: EXECUTION_SCOPE,
      initiator: identity.initiatorId,
      execution_id: identity.executionId,
    });
    this.tokens.set(key, token);
    return token;
  }
}
