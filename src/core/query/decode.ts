// Turns database values into API values per logical type: ISO-8601 timestamps, real booleans,
// parsed JSON, numbers for counts. Accepts what either database (and either driver
// configuration) returns: SQLite's 0/1, epoch ms and JSON text; Postgres' strings for bigint
// and numeric, Date objects or text for timestamps.
import type { ValueType } from './model/index.ts';

function iso(ms: number): string | null {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

function decodeValue(type: ValueType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer':
    case 'number':
      if (typeof value === 'number') return value;
      if (typeof value === 'bigint' || typeof value === 'string') return Number(value);
      return value;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (typeof value === 'number' || typeof value === 'bigint') return Number(value) !== 0;
      if (typeof value === 'string') return value === 't' || value === 'true' || value === '1';
      return Boolean(value);
    case 'timestamp':
      if (typeof value === 'number') return iso(value);
      if (typeof value === 'bigint') return iso(Number(value));
      if (value instanceof Date) return iso(value.getTime());
      if (typeof value === 'string') return /Z$/.test(value) && value.includes('T') ? value : iso(Date.parse(value.replace(' ', 'T')));
      return value;
    case 'date':
      if (value instanceof Date) return value.toISOString().slice(0, 10);
      return String(value).slice(0, 10);
    case 'json':
    case 'array':
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return value;
      }
    case 'uuid':
    case 'string':
      return typeof value === 'string' ? value : String(value);
  }
}

/** Builds API rows from result rows: only the selected columns, under their output keys. */
export function decodeRows(rows: readonly Record<string, unknown>[], columns: readonly { name: string; key: string; type: ValueType }[]): Record<string, unknown>[] {
  return rows.map((row) => {
    // defineProperty, so an output key can never reach a prototype setter.
    const out: Record<string, unknown> = {};
    for (const c of columns) Object.defineProperty(out, c.key, { value: decodeValue(c.type, row[c.name]), enumerable: true, writable: true, configurable: true });
    return out;
  });
}
