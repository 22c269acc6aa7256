// Postgres: ids uuid, timestamps timestamptz(3), JSON and arrays jsonb, booleans boolean.
// Every bound value carries an explicit CAST so its type never depends on inference, and
// the outermost SELECT spells timestamps and JSON as text so any driver returns one form.
// JSON goes in as text cast to jsonb: a parameter typed jsonb would let postgres.js
// JSON-encode the already encoded string (drizzle's driver does not, the bare client does).
import { type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { ValueType } from '../model/index.ts';
import { escapeLike } from './patterns.ts';
import type { Bindable, SqlDialect, TruncUnit } from './types.ts';

const compiler = new PgDialect();

const ISO = (x: SQL) => sql`to_char(${x} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const DAY = (x: SQL) => sql`to_char(${x}, 'YYYY-MM-DD')`;

function pathArgs(path: readonly string[]): SQL {
  return sql.join(
    path.map((segment) => sql`CAST(${segment} AS text)`),
    sql`, `,
  );
}

export const postgres: SqlDialect = {
  name: 'postgres',
  distinctOn: true,

  toQuery(query) {
    const { sql: text, params } = compiler.sqlToQuery(query);
    return { sql: text, params };
  },

  bind(type: ValueType, value: Bindable) {
    switch (type) {
      case 'uuid':
        return sql`CAST(${value} AS uuid)`;
      case 'string':
        return sql`CAST(${value} AS text)`;
      case 'integer':
        // bigint, so a value beyond int4 compares instead of failing; btree still uses int4 indexes.
        return sql`CAST(${value} AS bigint)`;
      case 'number':
        return sql`CAST(${value} AS double precision)`;
      case 'boolean':
        return sql`CAST(${value} AS boolean)`;
      case 'timestamp':
        return sql`CAST(${typeof value === 'number' ? new Date(value).toISOString() : value} AS timestamptz)`;
      case 'date':
        return sql`CAST(${value} AS date)`;
      case 'json':
      case 'array':
        return sql`CAST(CAST(${JSON.stringify(value)} AS text) AS jsonb)`;
    }
  },

  bindJson(value) {
    return sql`CAST(CAST(${JSON.stringify(value)} AS text) AS jsonb)`;
  },

  jsonText(doc, path) {
    return sql`jsonb_extract_path_text(${doc}, ${pathArgs(path)})`;
  },

  toJson(value) {
    return sql`to_jsonb(${value})`;
  },

  jsonNumber(doc, path) {
    return sql`(CASE WHEN jsonb_typeof(jsonb_extract_path(${doc}, ${pathArgs(path)})) = 'number' THEN CAST(jsonb_extract_path_text(${doc}, ${pathArgs(path)}) AS double precision) END)`;
  },

  jsonBoolean(doc, path) {
    return sql`(CASE WHEN jsonb_typeof(jsonb_extract_path(${doc}, ${pathArgs(path)})) = 'boolean' THEN CAST(jsonb_extract_path_text(${doc}, ${pathArgs(path)}) AS boolean) END)`;
  },

  jsonValue(doc, path) {
    return path.length === 0 ? doc : sql`jsonb_extract_path(${doc}, ${pathArgs(path)})`;
  },

  isBool(expr, json, want) {
    if (json) return want ? sql`${expr} = 'true'::jsonb` : sql`${expr} = 'false'::jsonb`;
    return want ? sql`${expr} = true` : sql`${expr} = false`;
  },

  like(expr, pattern, insensitive) {
    // Backslash is LIKE's default escape character in Postgres.
    return insensitive ? sql`${expr} ILIKE ${pattern}` : sql`${expr} LIKE ${pattern}`;
  },

  affix(expr, text, where) {
    return sql`${expr} LIKE ${where === 'start' ? `${escapeLike(text)}%` : `%${escapeLike(text)}`}`;
  },

  arrayHasAny(array, values) {
    return sql`EXISTS (SELECT 1 FROM jsonb_array_elements(CAST(CAST(${JSON.stringify(values)} AS text) AS jsonb)) AS "p"("v") WHERE jsonb_typeof(${array}) = 'array' AND ${array} @> jsonb_build_array("p"."v"))`;
  },

  arrayHasAll(array, values) {
    return sql`(jsonb_typeof(${array}) = 'array' AND ${array} @> CAST(CAST(${JSON.stringify(values)} AS text) AS jsonb))`;
  },

  arrayContainedBy(array, values) {
    // jsonb lets an array contain a bare scalar, so the field must itself be an array.
    return sql`(jsonb_typeof(${array}) = 'array' AND ${array} <@ CAST(CAST(${JSON.stringify(values)} AS text) AS jsonb))`;
  },

  jsonContains(doc, value, direction) {
    const bound = postgres.bindJson(value);
    return direction === 'contains' ? sql`${doc} @> ${bound}` : sql`${doc} <@ ${bound}`;
  },

  cast(x, from, to) {
    if (from === to) return x;
    switch (to) {
      case 'string':
        if (from === 'timestamp') return ISO(x);
        if (from === 'date') return DAY(x);
        return sql`CAST(${x} AS text)`;
      case 'integer':
        if (from === 'uuid' || from === 'date' || from === 'array') return undefined;
        if (from === 'number') return sql`CAST(trunc(${x}) AS bigint)`; // truncate, as SQLite does
        if (from === 'boolean') return sql`CAST(CAST(${x} AS integer) AS bigint)`;
        if (from === 'timestamp') return sql`CAST(floor(EXTRACT(EPOCH FROM ${x}) * 1000) AS bigint)`;
        if (from === 'string') return sql`CAST(trunc(CAST(${x} AS numeric)) AS bigint)`;
        return sql`CAST(${x} AS bigint)`;
      case 'number':
        if (from === 'uuid' || from === 'date' || from === 'array') return undefined;
        if (from === 'boolean') return sql`CAST(CAST(${x} AS integer) AS double precision)`;
        if (from === 'timestamp') return sql`CAST(EXTRACT(EPOCH FROM ${x}) * 1000 AS double precision)`;
        return sql`CAST(${x} AS double precision)`;
      case 'boolean':
        if (from === 'integer' || from === 'number') return sql`(${x} <> 0)`;
        if (from === 'string' || from === 'json') return sql`CAST(${x} AS boolean)`;
        return undefined;
      case 'date':
        if (from === 'string') return sql`CAST(${x} AS date)`;
        if (from === 'timestamp') return sql`CAST(${x} AT TIME ZONE 'UTC' AS date)`;
        return undefined;
      case 'timestamp':
        if (from === 'string') return sql`CAST(${x} AS timestamptz)`;
        if (from === 'integer' || from === 'number') return sql`to_timestamp(${x} / 1000.0)`;
        if (from === 'date') return sql`(CAST(${x} AS timestamp) AT TIME ZONE 'UTC')`;
        return undefined;
      case 'json':
        if (from === 'array') return x;
        if (from === 'string') return sql`CAST(${x} AS jsonb)`;
        if (from === 'timestamp') return sql`to_jsonb(${ISO(x)})`;
        if (from === 'date') return sql`to_jsonb(${DAY(x)})`;
        if (from === 'uuid') return sql`to_jsonb(CAST(${x} AS text))`;
        return sql`to_jsonb(${x})`;
      case 'uuid':
        return from === 'string' ? sql`CAST(${x} AS uuid)` : undefined;
      case 'array':
        return undefined;
    }
  },

  dateTrunc(unit: TruncUnit, x) {
    // Truncate in UTC whatever the session time zone; the unit comes from a fixed list.
    return sql`date_trunc(CAST(${unit} AS text), ${x}, 'UTC')`;
  },

  output(expr, type) {
    switch (type) {
      case 'timestamp':
        return ISO(expr);
      case 'date':
        return DAY(expr);
      case 'json':
      case 'array':
        return sql`CAST(${expr} AS text)`;
      default:
        return expr;
    }
  },

  nulls() {
    return sql``; // Postgres' defaults already sort NULL last ascending, first descending
  },

  explain(query) {
    return sql`EXPLAIN (FORMAT JSON) ${query}`;
  },
};
