// Encodes how an invocation ended as the payload of its 'D' line: JSON-checked, size-checked and
// with error messages only (never stacks), so nothing the server forwards needs re-checking.
import { ERROR_MESSAGE_LIMIT_CHARS, RESULT_LIMIT_BYTES } from '../limits.ts';
import type { ExecutionFailureCode } from '../types.ts';
import { describe } from './compile.ts';
import type { Invocation } from './invocation.ts';
import { ThrowSignal } from './invocation.ts';

export function failed(status: 500 | 502 | 504, code: ExecutionFailureCode, message: string): string {
  return JSON.stringify({ kind: 'failed', status, code, message: clip(message) });
}

/** A V8/JSC allocation failure as seen by JavaScript; the Worker is replaced after one. */
export function isOutOfMemory(err: unknown): boolean {
  return err instanceof RangeError && /out of memory/i.test(err.message);
}

/**
 * Only visible results leave the Worker (no response mode shows the others), and the 1 MiB limit
 * applies to what a response can carry: the visible values as JSON, without names or wrapping.
 */
export function encodeSuccess(inv: Invocation): string {
  if (inv.thrown) return encodeThrown(inv, inv.thrown);
  const entries: string[] = [];
  let size = 0;
  for (const [name, r] of inv.results) {
    if (!r.visible) continue;
    let valueJson: string | undefined;
    try {
      valueJson = JSON.stringify(r.value);
    } catch (err) {
      return failed(500, 'COMPONENT_ERROR', `a result is not JSON-serializable: ${describe(err)}`);
    }
    size += valueJson === undefined ? 0 : jsonBytes(valueJson);
    if (size > RESULT_LIMIT_BYTES) return failed(502, 'RESULT_TOO_LARGE', `results exceed ${RESULT_LIMIT_BYTES} bytes when serialized`);
    entries.push(`{"name":${JSON.stringify(name)},"visible":true${valueJson === undefined ? '' : `,"value":${valueJson}`}}`);
  }
  return `{"kind":"results","results":[${entries.join(',')}],"logs":${logsJson(inv)}}`;
}

export function encodeError(inv: Invocation, err: unknown): string {
  if (err instanceof ThrowSignal || inv.thrown) return encodeThrown(inv, inv.thrown ?? (err as ThrowSignal));
  if (isOutOfMemory(err)) return failed(502, 'EXECUTOR_RESOURCE_LIMIT', 'the component ran out of memory');
  return failed(500, 'COMPONENT_ERROR', describe(err));
}

function encodeThrown(inv: Invocation, signal: ThrowSignal): string {
  let bodyJson: string | undefined;
  try {
    bodyJson = JSON.stringify(signal.body);
  } catch (err) {
    return failed(500, 'COMPONENT_ERROR', `the api.throw body is not JSON-serializable: ${describe(err)}`);
  }
  if (bodyJson !== undefined && tooLarge(bodyJson)) {
    return failed(502, 'RESULT_TOO_LARGE', `the api.throw body exceeds ${RESULT_LIMIT_BYTES} bytes when serialized`);
  }
  // Without a body (api.throw(status)) the response has none either.
  const body = bodyJson === undefined ? '' : `"body":${bodyJson},`;
  return `{"kind":"thrown","status":${signal.status},${body}"logs":${logsJson(inv)}}`;
}

const logsJson = (inv: Invocation): string => (inv.logs.length === 0 ? '[]' : JSON.stringify(inv.logs));

function tooLarge(json: string): boolean {
  return jsonBytes(json) > RESULT_LIMIT_BYTES;
}

/** UTF-8 length; a string already longer than the limit in UTF-16 units is over it whatever its bytes. */
function jsonBytes(json: string): number {
  return json.length > RESULT_LIMIT_BYTES ? json.length : Buffer.byteLength(json);
}

function clip(message: string): string {
  return message.length > ERROR_MESSAGE_LIMIT_CHARS ? `${message.slice(0, ERROR_MESSAGE_LIMIT_CHARS)}…` : message;
}
