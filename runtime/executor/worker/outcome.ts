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

export function encodeSuccess(inv: Invocation): string {
  if (inv.thrown) return encodeThrown(inv, inv.thrown);
  const results: { name: string; value: unknown; visible: boolean }[] = [];
  for (const [name, r] of inv.results) results.push({ name, value: r.value, visible: r.visible });
  let resultsJson: string;
  try {
    resultsJson = JSON.stringify(results);
  } catch (err) {
    return failed(500, 'COMPONENT_ERROR', `a result is not JSON-serializable: ${describe(err)}`);
  }
  if (tooLarge(resultsJson)) return failed(502, 'RESULT_TOO_LARGE', `results exceed ${RESULT_LIMIT_BYTES} bytes when serialized`);
  return `{"kind":"results","results":${resultsJson},"logs":${JSON.stringify(inv.logs)}}`;
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
  return `{"kind":"thrown","status":${signal.status},${body}"logs":${JSON.stringify(inv.logs)}}`;
}

function tooLarge(json: string): boolean {
  // UTF-8 needs 1–3 bytes per UTF-16 unit: decide cheaply unless the string is in the ambiguous band.
  if (json.length > RESULT_LIMIT_BYTES) return true;
  if (json.length * 3 <= RESULT_LIMIT_BYTES) return false;
  return Buffer.byteLength(json) > RESULT_LIMIT_BYTES;
}

function clip(message: string): string {
  return message.length > ERROR_MESSAGE_LIMIT_CHARS ? `${message.slice(0, ERROR_MESSAGE_LIMIT_CHARS)}…` : message;
}
