// Coerces client values to a field's logical type. Bracket-style values are always strings, JSON
// values may be typed; both land on the same bound value, so equivalent encodings compile alike.
import type { Bindable, JsonScalar } from '../dialect/index.ts';
import { fail, type ScalarType, type ValueType } from '../model/index.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGER = /^[-+]?\d{1,16}$/;
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d{1,3})?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i;
/** Postgres and JS Date agree on this range; outside it a timestamp is refused. */
const MAX_MS = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
const MIN_MS = -62_135_596_800_000; // 0001-01-01T00:00:00.000Z

function validDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(text);
}

/** A scalar coerced to `type`, or a violation at `pointer`. */
export function coerce(type: ValueType, raw: unknown, pointer: string): Bindable {
  switch (type) {
    case 'uuid':
      if (typeof raw === 'string' && UUID.test(raw)) return raw.toLowerCase();
      return fail(pointer, 'expected a UUID');
    case 'string':
      if (typeof raw === 'string') return raw;
      if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
      return fail(pointer, 'expected a string');
    case 'integer': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && INTEGER.test(raw.trim()) ? Number(raw.trim()) : NaN;
      if (Number.isSafeInteger(n)) return n;
      return fail(pointer, 'expected an integer');
    }
    case 'number': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && NUMBER.test(raw.trim()) ? Number(raw.trim()) : NaN;
      if (Number.isFinite(n)) return n;
      return fail(pointer, 'expected a number');
    }
    case 'boolean':
      if (typeof raw === 'boolean') return raw;
      if (typeof raw === 'string' && /^(true|false)$/i.test(raw.trim())) return raw.trim().toLowerCase() === 'true';
      return fail(pointer, 'expected true or false');
    case 'timestamp':
      return timestamp(raw, pointer);
    case 'date':
      if (typeof raw === 'string' && validDate(raw.trim())) return raw.trim();
      return fail(pointer, 'expected a date YYYY-MM-DD');
    case 'json':
    case 'array':
      return fail(pointer, 'this field takes no scalar value');
  }
}

/** Timestamps bind as epoch milliseconds: ISO-8601 strings, or epoch ms as number or digits. */
function timestamp(raw: unknown, pointer: string): number {
  let ms = NaN;
  if (typeof raw === 'number' && Number.isInteger(raw)) ms = raw;
  else if (typeof raw === 'string') {
    const text = raw.trim();
    if (INTEGER.test(text)) ms = Number(text);
    else if (validDate(text)) ms = Date.parse(`${text}T00:00:00Z`);
    else if (DATE_TIME.test(text) && validDate(text.slice(0, 10))) {
      // A date-time without offset is read as UTC on every server.
      const withZone = /(Z|[+-]\d{2}(:?\d{2})?)$/i.test(text) ? text : `${text}Z`;
      ms = Date.parse(withZone.replace(' ', 'T'));
    }
  }
  if (!Number.isSafeInteger(ms) || ms > MAX_MS || ms < MIN_MS) return fail(pointer, 'expected an ISO-8601 timestamp or epoch milliseconds');
  return ms;
}

/** An array element: coerced to the field's item type, or (for JSON paths) kept as the JSON scalar given. */
export function coerceElement(items: ScalarType | undefined, raw: unknown, pointer: string): JsonScalar {
  if (items === undefined) {
    if (typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean') return raw;
    return fail(pointer, 'expected a string, number or boolean');
  }
  return coerce(items, raw, pointer);
}

/** A JSON value for containment; elements of an array field are coerced to its item type. */
export function coerceJson(items: ScalarType | undefined, raw: unknown, pointer: string): unknown {
  if (items === undefined) return raw;
  if (Array.isArray(raw)) return raw.map((v, i) => coerce(items, v, `${pointer}/${i}`));
  if (typeof raw === 'object' && raw !== null) return fail(pointer, 'expected a list of elements');
  return coerce(items, raw, pointer);
}
