// The spec's cast types and the logical type each converts to. The SQL of each conversion is in
// the dialects (`cast`): Postgres casts natively (a value that does not convert fails the query
// with a 400), SQLite converts leniently (CAST semantics; unparseable dates and JSON give NULL).
import type { CastType, ValueType } from '../model/index.ts';

export const CAST_TARGET: Record<CastType, ValueType> = {
  TEXT: 'string',
  INTEGER: 'integer',
  BIGINT: 'integer',
  NUMERIC: 'number',
  BOOLEAN: 'boolean',
  DATE: 'date',
  // Both timestamp types mean an instant in UTC; the API has no zone-less times.
  TIMESTAMP: 'timestamp',
  TIMESTAMPTZ: 'timestamp',
  JSON: 'json',
  JSONB: 'json',
  UUID: 'uuid',
};

/** `filterType` of a function entry: the logical type its result is converted to. */
export const FILTER_TYPES: Record<string, ValueType> = {
  uuid: 'uuid',
  string: 'string',
  text: 'string',
  integer: 'integer',
  number: 'number',
  boolean: 'boolean',
  timestamp: 'timestamp',
  date: 'date',
  json: 'json',
};
