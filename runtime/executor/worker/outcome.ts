// Encodes how an invocation ended as the payload of its 'D' line: JSON-checked, size-checked and
// with error messages only (never stacks), so nothing the server forwards needs re-checking.
//
// Result values and an api.throw body travel as JSON text after the header, not inside it: the
// server answers with that text as is instead of parsing and serializing every value again.
//   {"kind":"results","results":[{"name":"a","visible":true,"len":7},…],"logs":[…]}<TAB><values…>
// JSON text never holds a raw tab or newline, so the tab and the line stay unambiguous.
import { ERROR_MESSAGE_LIMIT_CHARS, RESULT_LIMIT_BYTES, type ExecutionFailureCode, type ResultSelection } from '../contract/index.ts';
import { describe } from './compile.ts';
import { stringify, utf8Length } from './intrinsics.ts';
import type { Invocation } from './invocation.ts';
import { ThrowSignal } from './invocation.ts';


export function failed(status: 500 | 502 | 504, code: ExecutionFailureCode, message: string): string {
  return stringify({ kind: 'failed', status, code, message: clip(message) });
}

/** A V8/JSC allocation failure as seen by JavaScript; the Worker is replaced after one. */
export function isOutOfMemory(err: unknown): boolean {
  return err instanceof RangeError && /out of memory/i.test(err.message);
}

/**
 * Only the visible results the response mode shows leave the Worker (all of them, the popped one,
 * or none), and the 1 MiB limit applies to what the response can carry: those values as JSON,
 * without names or wrapping (the names have a 1 MiB budget of their own).
 */
export function encodeSuccess(inv: Invocation): string {
  if (inv.thrown) return encodeThrown(inv, inv.thrown);
  let entries = '';
  let values = '';
  let size = 0;
  let namesSize = 0;
  const selection = inv.request.results;
  for (const [name, r] of inv.results) {
    if (!r.visible || !selected(selection, name)) continue;
    let valueJson: string | undefined;
    try {
      valueJson = stringify(r.value);
    } catch (err) {
      return failed(500, 'COMPONENT_ERROR', `a result is not JSON-serializable: ${describe(err)}`);
    }
    const entry = valueJson === undefined ? `${entryHead(name)}}` : `${entryHead(name)},"len":${valueJson.length}}`;
    size += valueJson === undefined ? 0 : jsonBytes(valueJson);
    if (size > RESULT_LIMIT_BYTES) return failed(502, 'RESULT_TOO_LARGE', `results exceed ${RESULT_LIMIT_BYTES} bytes when serialized`);
    // Names (with the entry around each) have a budget of their own: many or long ones would
    // otherwise overflow the host's channel line and take the host, and its other calls, down.
    namesSize += jsonBytes(entry);
    if (namesSize > RESULT_LIMIT_BYTES) return failed(502, 'RESULT_TOO_LARGE', `result names exceed ${RESULT_LIMIT_BYTES} bytes when serialized`);
    entries = entries === '' ? entry : `${entries},${entry}`;
    if (valueJson !== undefined) values += valueJson;
  }
  return `{"kind":"results","results":[${entries}],"logs":${logsJson(inv)}}\t${values}`;
}

export function encodeError(inv: Invocation, err: unknown): string {
  if (err instanceof ThrowSignal || inv.thrown) return encodeThrown(inv, inv.thrown ?? (err as ThrowSignal));
  if (isOutOfMemory(err)) return failed(502, 'EXECUTOR_RESOURCE_LIMIT', 'the component ran out of memory');
  return failed(500, 'COMPONENT_ERROR', describe(err));
}

function encodeThrown(inv: Invocation, signal: ThrowSignal): string {
  let bodyJson: string | undefined;
  try {
    bodyJson = stringify(signal.body);
  } catch (err) {
    return failed(500, 'COMPONENT_ERROR', `the api.throw body is not JSON-serializable: ${describe(err)}`);
  }
  if (bodyJson !== undefined && tooLarge(bodyJson)) {
    return failed(502, 'RESULT_TOO_LARGE', `the api.throw body exceeds ${RESULT_LIMIT_BYTES} bytes when serialized`);
  }
  // Without a body (api.throw(status)) the response has none either.
  const len = bodyJson === undefined ? '' : `"len":${bodyJson.length},`;
  return `{"kind":"thrown","status":${signal.status},${len}"logs":${logsJson(inv)}}\t${bodyJson ?? ''}`;
}

/** `{"name":…,"visible":true` per result name, made once: a revision uses a few names over and over. */
const entryHeads = new Map<string, string>();
function entryHead(name: string): string {
  let head = entryHeads.get(name);
  if (head === undefined) {
    head = `{"name":${stringify(name)},"visible":true`;
    // Names come from component code: a component making new ones each call must not grow this.
    if (entryHeads.size < 256) entryHeads.set(name, head);
  }
  return head;
}

/** Whether the response can carry this result (the Endpoint's response mode decides). */
function selected(selection: ResultSelection | undefined, name: string): boolean {
  if (selection === undefined) return true;
  return selection !== 'none' && selection.only === name;
}

const logsJson = (inv: Invocation): string => (inv.logs.length === 0 ? '[]' : stringify(inv.logs));

function tooLarge(json: string): boolean {
  return jsonBytes(json) > RESULT_LIMIT_BYTES;
}

/** UTF-8 length; a string already longer than the limit in UTF-16 units is over it whatever its bytes. */
function jsonBytes(json: string): number {
  return json.length > RESULT_LIMIT_BYTES ? json.length : utf8Length(json);
}

function clip(message: string): string {
  return message.length > ERROR_MESSAGE_LIMIT_CHARS ? `${message.slice(0, ERROR_MESSAGE_LIMIT_CHARS)}…` : message;
}
