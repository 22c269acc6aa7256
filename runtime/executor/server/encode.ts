// The payload of an 'R' line (wire/lines.ts): what the Worker's Invocation is built from. The
// other direction, the host's answers, is decode.ts.
import type { ExecutionRequest } from '../contract/index.ts';

/**
 * JSON texts the caller already has (the body as received, the template inputs made once) are
 * spliced in, not made again; the input's keys keep their order (body last).
 */
export function encodeRun(r: ExecutionRequest): string {
  const { input, executionId, oid, currentUser, results, bodyJson, inputsJson } = r;
  if (bodyJson === undefined && inputsJson === undefined) return JSON.stringify({ input, executionId, oid, currentUser, results });
  const { body: _parsed, inputs, ...rest } = input;
  let fields = JSON.stringify(rest).slice(1, -1);
  const inputsText = inputsJson ?? JSON.stringify(inputs);
  if (inputsText !== undefined) fields += `${fields === '' ? '' : ','}"inputs":${oneLine(inputsText)}`;
  if (bodyJson !== undefined) fields += `${fields === '' ? '' : ','}"body":${oneLine(bodyJson)}`;
  const selection = results === undefined ? '' : `,"results":${JSON.stringify(results)}`;
  return `{"input":{${fields}},"executionId":${JSON.stringify(executionId)},"oid":${JSON.stringify(oid)},"currentUser":${JSON.stringify(currentUser)}${selection}}`;
}

/**
 * JSON text fit for a line: valid JSON can hold a raw CR or LF only between tokens, where a space
 * means the same (a received body may have them; JSON.stringify never makes them).
 */
const oneLine = (json: string): string => (json.includes('\n') || json.includes('\r') ? json.replace(/[\r\n]/g, ' ') : json);
