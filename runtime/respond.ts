// The configured HTTP response of an invocation (spec, Response modes).
import type { CompiledEndpoint, PreparedStatic } from './index/index.ts';
import type { ComponentResult, ExecutionOutcome } from './executor/contract/index.ts';
import type { CompiledGuard } from './guard/index.ts';
import { ProblemError, carriesNoContent } from '../src/core/http/index.ts';

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
