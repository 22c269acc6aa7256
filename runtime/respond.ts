// The configured HTTP response of an invocation (spec, Response modes).
import type { CompiledEndpoint } from './index/compiled.ts';
import type { ComponentResult, ExecutionOutcome } from './executor/types.ts';
import type { CompiledGuard } from './guard/index.ts';
import { ProblemError } from '../src/core/http/problem.ts';
import { carriesNoContent } from '../src/core/http/status.ts';
import { isServedHeader } from '../src/core/definitions/static-headers.ts';

const JSON_TYPE = 'application/json';

export interface ResponseHeaders {
  oid: string;
  executionId: string;
}

const baseHeaders = (h: ResponseHeaders): Record<string, string> => ({ 'x-svc-oid': h.oid, 'x-execution-id': h.executionId });


export function json(status: number, body: unknown, h: ResponseHeaders): Response {
  if (body === undefined || carriesNoContent(status)) return new Response(null, { status, headers: baseHeaders(h) });
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_TYPE, 'x-svc-oid': h.oid, 'x-execution-id': h.executionId } });
}

export interface PreparedStatic {
  status: number;
  body: string | null;
  headers: Record<string, string>;
}

/**
 * The static response, serialised once per index build. A configured non-JSON content type sends
 * a string body as is; everything else is JSON.
 *
 * Header names are case-insensitive, and Bun merges two spellings of one name into one field: so
 * any spelling of a platform header is dropped here (else `X-Svc-Oid` would arrive as
 * `forged, <oid>`), and every spelling of content-type collapses into one, the last configured.
 * A header the control plane's rules refuse (a row stored before them: one the runtime cannot send,
 * or a hop-by-hop one, which would speak for the connection) is skipped rather than failing every
 * invocation; validation warns of it. Done here, the per-request path stays one spread.
 */
export function prepareStatic(s: { status: number; headers?: Record<string, string>; body?: unknown }): PreparedStatic {
  let type: string | undefined;
  const kept: [string, string][] = [];
  for (const [name, value] of Object.entries(s.headers ?? {})) {
    if (!isServedHeader(name, value)) continue;
    if (name.toLowerCase() === 'content-type') type = value;
    else kept.push([name, value]);
  }
  // fromEntries defines own properties, so even a header named `__proto__` stays a header.
  const headers: Record<string, string> = Object.fromEntries(kept);
  if (s.body === undefined) {
    if (type !== undefined) headers['content-type'] = type;
    return { status: s.status, body: null, headers };
  }
  if (carriesNoContent(s.status)) return { status: s.status, body: null, headers };
  headers['content-type'] = type ?? JSON_TYPE;
  if (type !== undefined && typeof s.body === 'string' && !/json/i.test(type)) return { status: s.status, body: s.body, headers };
  return { status: s.status, body: JSON.stringify(s.body), headers };
}

/** The static response of an Endpoint without a component: no executor hop. */
export function staticResponse(prepared: PreparedStatic, h: ResponseHeaders): Response {
  return new Response(prepared.body, { status: prepared.status, headers: { ...prepared.headers, 'x-svc-oid': h.oid, 'x-execution-id': h.executionId } });
}

/** A response whose body is JSON text already (a value exactly as the component's Worker serialized it). */
function rawJson(status: number, text: string | undefined, h: ResponseHeaders): Response {
  if (text === undefined || carriesNoContent(status)) return new Response(null, { status, headers: baseHeaders(h) });
  return new Response(text, { status, headers: { 'content-type': JSON_TYPE, 'x-svc-oid': h.oid, 'x-execution-id': h.executionId } });
}

/**
 * Maps an execution outcome to the Endpoint's response mode. Values arrive as JSON text and are
 * put together as text: nothing is parsed or serialized again here.
 */
export function outcomeResponse(endpoint: CompiledEndpoint, outcome: ExecutionOutcome, h: ResponseHeaders): Response | ProblemError {
  const d = endpoint.definition;
  switch (outcome.kind) {
    case 'failed':
      return new ProblemError(outcome.status, outcome.code, outcome.message);
    case 'thrown':
      return rawJson(outcome.status, outcome.bodyJson, h);
    case 'results': {
      const visible = outcome.results.filter((r) => r.visible);
      const mismatch = endpoint.resultSchemas ? declaredSchemaMismatch(endpoint.resultSchemas, visible) : null;
      if (mismatch) return mismatch;
      if (d.noResult) return new Response(null, { status: d.successStatus, headers: baseHeaders(h) });
      if (d.popResult) {
        const result = visible.find((r) => r.name === d.popResult);
        if (!result) return new ProblemError(500, 'COMPONENT_ERROR', `The component produced no visible result named ${d.popResult}`);
        return rawJson(d.successStatus, result.json ?? 'null', h);
      }
      if (d.legacyResults) {
        const results = visible.map((r) => (r.json === undefined ? `{"name":${JSON.stringify(r.name)}}` : `{"name":${JSON.stringify(r.name)},"value":${r.json}}`));
        return rawJson(d.successStatus, `{"success":true,"results":[${results.join(',')}],"executionId":${JSON.stringify(h.executionId)}}`, h);
      }
      // A name set twice keeps its last value, as an object literal would.
      const entries = new Map<string, string>();
      for (const r of visible) if (r.json !== undefined) entries.set(r.name, r.json);
      let body = '';
      for (const [name, json] of entries) body += `${body === '' ? '' : ','}${JSON.stringify(name)}:${json}`;
      return rawJson(d.successStatus, `{${body}}`, h);
    }
  }
}

/**
 * A visible result that breaks the schema its node revision declares for it is the component's
 * error (500), never a success response carrying what the Endpoint's contract rules out. Only
 * results with a declared schema are parsed here.
 */
function declaredSchemaMismatch(schemas: ReadonlyMap<string, CompiledGuard>, visible: ComponentResult[]): ProblemError | null {
  for (const r of visible) {
    const guard = schemas.get(r.name);
    if (!guard) continue;
    const value: unknown = r.json === undefined ? undefined : JSON.parse(r.json);
    if (guard.check(value)) continue;
    const first = guard.violations(value)[0];
    const where = first ? ` at ${first.pointer || '/'}: ${first.message}` : '';
    return new ProblemError(500, 'COMPONENT_ERROR', `The result ${r.name} does not match its declared schema${where}`, {
      errors: guard.violations(value).slice(0, 20).map((v) => ({ pointer: `/results/${r.name.replace(/~/g, '~0').replace(/\//g, '~1')}${v.pointer}`, message: v.message })),
    });
  }
  return null;
}
