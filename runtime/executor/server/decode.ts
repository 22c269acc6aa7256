// Narrows what a host sends back (untrusted: it ran component code) into typed outcomes.
// Anything malformed becomes an explicit EXECUTOR_CRASHED failure rather than a guess.
import {
  LOG_LIMIT_BYTES,
  RESULT_LIMIT_BYTES,
  type ComponentResult,
  type ExecutionFailureCode,
  type ExecutionOutcome,
  type VerifyOutcome,
} from '../contract/index.ts';

const FAILURE_CODES: ReadonlySet<string> = new Set<ExecutionFailureCode>([
  'COMPONENT_ERROR',
  'EXECUTOR_CRASHED',
  'EXECUTOR_RESOURCE_LIMIT',
  'RESULT_TOO_LARGE',
  'EXECUTION_TIMEOUT',
]);

/** Results, logs and JSON punctuation together can never honestly exceed this. */
const MAX_REPLY_CHARS = RESULT_LIMIT_BYTES + 2 * LOG_LIMIT_BYTES + 64 * 1024;

export function failure(status: 500 | 502 | 504, code: ExecutionFailureCode, message: string): ExecutionOutcome {
  return { kind: 'failed', status, code, message };
}

const malformed = (): ExecutionOutcome => failure(502, 'EXECUTOR_CRASHED', 'the executor host sent a malformed reply');

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isLogs(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((l) => typeof l === 'string');
}

/**
 * A 'D' payload: a JSON header, then (after a tab) the JSON texts of the result values or of the
 * api.throw body, whose lengths the header gives (see worker/outcome.ts). The texts are taken as
 * they are: the Worker made them with the real JSON.stringify before any component code ran.
 */
export function decodeOutcome(payload: string): ExecutionOutcome {
  if (payload.length > MAX_REPLY_CHARS) {
    return failure(502, 'RESULT_TOO_LARGE', `results exceed ${RESULT_LIMIT_BYTES} bytes when serialized`);
  }
  const tab = payload.indexOf('\t');
  const values = tab === -1 ? '' : payload.slice(tab + 1);
  // The Worker checks the limit too, but inside the Worker component code could have tampered
  // with what it measures with; UTF-8 needs at most 3 bytes per character, so only long texts
  // need counting.
  if (values.length > RESULT_LIMIT_BYTES / 3 && Buffer.byteLength(values) > RESULT_LIMIT_BYTES) {
    return failure(502, 'RESULT_TOO_LARGE', `results exceed ${RESULT_LIMIT_BYTES} bytes when serialized`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(tab === -1 ? payload : payload.slice(0, tab));
  } catch {
    return malformed();
  }
  if (!isRecord(raw)) return malformed();
  switch (raw.kind) {
    case 'results': {
      const { results, logs } = raw;
      if (!Array.isArray(results) || !isLogs(logs)) return malformed();
      const out: ComponentResult[] = [];
      let at = 0;
      for (const r of results as unknown[]) {
        if (!isRecord(r) || typeof r.name !== 'string' || typeof r.visible !== 'boolean') return malformed();
        if (r.len === undefined) {
          out.push({ name: r.name, visible: r.visible });
          continue;
        }
        if (!isLength(r.len) || at + r.len > values.length) return malformed();
        out.push({ name: r.name, visible: r.visible, json: values.slice(at, at + r.len) });
        at += r.len;
      }
      return at === values.length ? { kind: 'results', results: out, logs } : malformed();
    }
    case 'thrown': {
      const { status, logs, len } = raw;
      if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599 || !isLogs(logs)) {
        return malformed();
      }
      if (len === undefined) return values.length === 0 ? { kind: 'thrown', status, logs } : malformed();
      return isLength(len) && len === values.length && len > 0 ? { kind: 'thrown', status, bodyJson: values, logs } : malformed();
    }
    case 'failed': {
      const { status, code, message } = raw;
      if ((status !== 500 && status !== 502 && status !== 504) || typeof code !== 'string' || !FAILURE_CODES.has(code)) {
        return malformed();
      }
      return failure(status, code as ExecutionFailureCode, typeof message === 'string' ? message : '');
    }
    default:
      return malformed();
  }
}

const isLength = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

export function decodeVerify(json: string): VerifyOutcome {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return { ok: false, error: 'the executor host sent a malformed reply' };
  }
  if (isRecord(raw) && raw.kind === 'verified' && raw.ok === true) return { ok: true };
  if (isRecord(raw) && raw.kind === 'verified' && typeof raw.error === 'string') return { ok: false, error: raw.error };
  return { ok: false, error: 'the executor host sent a malformed reply' };
}
