// The configured HTTP response of an invocation (spec, Response modes).
import type { CompiledEndpoint } from './index/compiled.ts';
import type { ExecutionOutcome } from './executor/types.ts';
import { ProblemError } from '../src/http/problem.ts';

const JSON_TYPE = 'application/json';

export interface ResponseHeaders {
  oid: string;
  executionId: string;
}

const baseHeaders = (h: ResponseHeaders): Record<string, string> => ({ 'x-svc-oid': h.oid, 'x-execution-id': h.executionId });

export function json(status: number, body: unknown, h: ResponseHeaders): Response {
  if (body === undefined) return new Response(null, { status, headers: baseHeaders(h) });
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_TYPE, ...baseHeaders(h) } });
}

/** The static response of an Endpoint without a component: no executor hop. */
export function staticResponse(endpoint: CompiledEndpoint, h: ResponseHeaders): Response {
  const s = endpoint.definition.staticResponse!;
  const headers: Record<string, string> = { ...s.headers, ...baseHeaders(h) };
  const hasType = Object.keys(headers).some((k) => k.toLowerCase() === 'content-type');
  if (s.body === undefined) return new Response(null, { status: s.status, headers });
  // A configured non-JSON content type sends a string body as is; everything else is JSON.
  if (hasType && typeof s.body === 'string' && !/json/i.test(headers[Object.keys(headers).find((k) => k.toLowerCase() === 'content-type')!]!)) {
    return new Response(s.body, { status: s.status, headers });
  }
  if (!hasType) headers['content-type'] = JSON_TYPE;
  return new Response(JSON.stringify(s.body), { status: s.status, headers });
}

/** Maps an execution outcome to the Endpoint's response mode. */
export function outcomeResponse(endpoint: CompiledEndpoint, outcome: ExecutionOutcome, h: ResponseHeaders): Response | ProblemError {
  const d = endpoint.definition;
  switch (outcome.kind) {
    case 'failed':
      return new ProblemError(outcome.status, outcome.code, outcome.message);
    case 'thrown':
      return json(outcome.status, outcome.body, h);
    case 'results': {
      const visible = outcome.results.filter((r) => r.visible);
      if (d.noResult) return new Response(null, { status: d.successStatus, headers: baseHeaders(h) });
      if (d.popResult) {
        const result = visible.find((r) => r.name === d.popResult);
        if (!result) return new ProblemError(500, 'COMPONENT_ERROR', `The component produced no visible result named ${d.popResult}`);
        return json(d.successStatus, result.value ?? null, h);
      }
      if (d.legacyResults) {
        return json(d.successStatus, { success: true, results: visible.map((r) => ({ name: r.name, value: r.value })), executionId: h.executionId }, h);
      }
      const map: Record<string, unknown> = {};
      for (const r of visible) map[r.name] = r.value;
      return json(d.successStatus, map, h);
    }
  }
}
