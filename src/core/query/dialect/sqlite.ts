// SQLite: ids TEXT, timestamps INTEGER epoch ms, JSON and arrays as JSON TEXT, booleans 0/1.
// Array and JSON operators go through json_each/json_tree; case-sensitive LIKE through GLOB.
import { type SQL, sql } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import type { ValueType } from '../model/index.ts';
import { escapeGlob, likeToGlob } from './patterns.ts';
import type { Bindable, JsonScalar, SqlDialect, TruncUnit } from './types.ts';

const compiler = new SQLiteSyncDialect();

/** `$."a"."b"[0]`: segments are pre-validated ([A-Za-z0-9_-]), so quoting is enough. */
function sqlitePath(path: readonly string[]): string {
  return `$${path.map((s) => (/^\d+$/.test(s) ? `[${s}]` : `."${s}"`)).join('')}`;
}

/** A json_each/json_type type with integer and real as one (jsonb compares numbers as numbers). */
const numberType = (type: SQL) => sql`(CASE ${type} WHEN 'real' THEN 'integer' ELSE ${type} END)`;

// JSON elements as (type, atom) rows; set operations compare rows as DISTINCT does: NULLs alike,
// 1 and 1.0 alike.
function elementsOf(array: SQL): SQL {
  return sql`SELECT ${numberType(sql`"e".type`)}, "e".atom FROM json_each(${array}) AS "e"`;
}

/** The client's values as the same (type, atom) rows, bound. */
function valuesOf(values: readonly (JsonScalar | null)[]): SQL {
  const row = (v: JsonScalar | null): SQL => {
    if (v === null) return sql`('null', NULL)`;
    if (typeof v === 'boolean') return v ? sql`('true', 1)` : sql`('false', 0)`;
    if (typeof v === 'number') return sql`('integer', ${v})`;
    return sql`('text', ${v})`;
  };
  return sql`SELECT * FROM (VALUES ${sql.join(values.map(row), sql`, `)})`;
}

// JSON containment (jsonb's `@>`), compiled from the client's value, which is known: its
// structure becomes nested EXISTS over json_each, so objects nested in arrays match in any
// position, as on Postgres. A document is reached as {type, atom, json}: a column or path
// (json_type / json_extract / the JSON text) or a json_each row (type / atom / value). Every
// json_each sits behind a CASE on the document's type: it may only see JSON text.

interface Doc {
  type: SQL;
  atom: SQL;
  json: SQL;
}

const rowDoc = (alias: SQL): Doc => ({ type: sql`${alias}.type`, atom: sql`${alias}.atom`, json: sql`${alias}.value` });

/** The document is the scalar `v` (numbers compare as numbers, 1 = 1.0, as jsonb does). */
function isScalar(d: Doc, v: null | boolean | number | string): SQL {
  if (v === null) return sql`${d.type} = 'null'`;
  if (typeof v === 'boolean') return v ? sql`${d.type} = 'true'` : sql`${d.type} = 'false'`;
  if (typeof v === 'number') return sql`(${numberType(d.type)} = 'integer' AND ${d.atom} = ${v})`;
  return sql`(${d.type} = 'text' AND ${d.atom} = ${v})`;
}

const isJsonScalar = (v: unknown): v is null | boolean | number | string => v === null || typeof v !== 'object';
const all = (parts: SQL[]) => sql.join(parts, sql` AND `);
const any = (parts: SQL[]) => sql.join(parts, sql` OR `);
const alias = (names: { next: number }): SQL => sql`${sql.identifier(`j${names.next++}`)}`;

/** `d @> v`: every member of v is found in d (object keys by name, array elements anywhere). */
function holds(d: Doc, v: unknown, top: boolean, names: { next: number }): SQL {
  if (isJsonScalar(v)) {
    // At the top level only, an array contains a scalar it holds (jsonb's special case).
    if (!top) return isScalar(d, v);
    const e = alias(names);
    return sql`(${isScalar(d, v)} OR (CASE WHEN ${d.type} = 'array' THEN EXISTS (SELECT 1 FROM json_each(${d.json}) AS ${e} WHERE ${isScalar(rowDoc(e), v)}) ELSE 0 END))`;
  }
  if (Array.isArray(v)) {
    // Scalars as one set (indexed by SQLite: a value of 1,000 scalars against a long array is no
    // 1,000 scans), objects and arrays one EXISTS each.
    const scalars = v.filter(isJsonScalar);
    const found = v.filter((item) => !isJsonScalar(item)).map((item) => {
      const e = alias(names);
      return sql`EXISTS (SELECT 1 FROM json_each(${d.json}) AS ${e} WHERE ${holds(rowDoc(e), item, false, names)})`;
    });
    if (scalars.length > 0) found.unshift(sql`NOT EXISTS (${valuesOf(scalars)} EXCEPT ${elementsOf(d.json)})`);
    return sql`(CASE WHEN ${d.type} = 'array' THEN ${found.length > 0 ? all(found) : sql`1`} ELSE 0 END)`;
  }
  const found = Object.entries(v as Record<string, unknown>).map(([key, item]) => {
    const e = alias(names);
    return sql`EXISTS (SELECT 1 FROM json_each(${d.json}) AS ${e} WHERE ${e}.key = ${key} AND ${holds(rowDoc(e), item, false, names)})`;
  });
  return sql`(CASE WHEN ${d.type} = 'object' THEN ${found.length > 0 ? all(found) : sql`1`} ELSE 0 END)`;
}

/** `v @> d`, that is `d <@ v`: every member of d is found in v. */
function holdsIn(v: unknown, d: Doc, top: boolean, names: { next: number }): SQL {
  if (isJsonScalar(v)) return isScalar(d, v);
  const e = alias(names);
  if (Array.isArray(v)) {
    // The document's scalar elements must be among v's scalars (one indexed set operation); its
    // objects and arrays each within one of v's.
    const scalars = v.filter(isJsonScalar);
    const containers = v.filter((item) => !isJsonScalar(item));
    const scalarRows = sql`SELECT ${numberType(sql`"s".type`)}, "s".atom FROM json_each(${d.json}) AS "s" WHERE "s".type NOT IN ('object', 'array')`;
    const scalarsIn = scalars.length > 0 ? sql`NOT EXISTS (${scalarRows} EXCEPT ${valuesOf(scalars)})` : sql`NOT EXISTS (${scalarRows})`;
    const inV = containers.length > 0 ? any(containers.map((item) => holdsIn(item, rowDoc(e), false, names))) : sql`0`;
    const containersIn = sql`NOT EXISTS (SELECT 1 FROM json_each(${d.json}) AS ${e} WHERE ${e}.type IN ('object', 'array') AND NOT (${inV}))`;
    const elements = sql`(CASE WHEN ${d.type} = 'array' THEN (${scalarsIn} AND ${containersIn}) ELSE 0 END)`;
    // At the top level, a scalar is contained in an array that holds it.
    return top && scalars.length > 0 ? sql`(${elements} OR ${any(scalars.map((item) => isScalar(d, item)))})` : elements;
  }
  const entries = Object.entries(v as Record<string, unknown>);
  const inV = entries.length > 0
    ? sql`(CASE ${e}.key ${sql.join(entries.map(([key, item]) => sql`WHEN ${key} THEN ${holdsIn(item, rowDoc(e), false, names)}`), sql` `)} ELSE 0 END)`
    : sql`0`;
  return sql`(CASE WHEN ${d.type} = 'object' THEN NOT EXISTS (SELECT 1 FROM json_each(${d.json}) AS ${e} WHERE NOT (${inV})) ELSE 0 END)`;
}

export const sqlite: SqlDialect = {
  name: 'sqlite',
  distinctOn: false,

  toQuery(query) {
    const { sql: text, params } = compiler.sqlToQuery(query);
    return { sql: text, params };
  },

  bind(type: ValueType, value: Bindable) {
    if (typeof value === 'boolean') return sql`${value ? 1 : 0}`;
    void type; // storage representation equals the coerced value for every other type
    return sql`${value}`;
  },

  bindJson(value) {
    return sql`${JSON.stringify(value)}`;
  },

  jsonText(doc, path) {
    // ->> turns JSON true/false into 1/0; spell them like Postgres' #>> does.
    const p = sqlitePath(path);
    return sql`(CASE json_type(${doc}, ${p}) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(json_extract(${doc}, ${p}) AS TEXT) END)`;
  },

  toJson(value, from) {
    // A number decodes as itself; a text goes quoted, so that "true" or "3" stay strings.
    return from === 'number' ? value : sql`json_quote(${value})`;
  },

  jsonNumber(doc, path) {
    const p = sqlitePath(path);
    return sql`(CASE WHEN json_type(${doc}, ${p}) IN ('integer', 'real') THEN json_extract(${doc}, ${p}) END)`;
  },

  jsonBoolean(doc, path) {
    return sql`(CASE json_type(${doc}, ${sqlitePath(path)}) WHEN 'true' THEN 1 WHEN 'false' THEN 0 END)`;
  },

  jsonValue(doc, path) {
    return path.length === 0 ? doc : sql`(${doc} -> ${sqlitePath(path)})`;
  },

  isBool(expr, json, want) {
    if (json) return want ? sql`${expr} = 'true'` : sql`${expr} = 'false'`;
    return want ? sql`${expr} = 1` : sql`${expr} = 0`;
  },

  like(expr, pattern, insensitive) {
    // SQLite's LIKE ignores ASCII case; GLOB is the case-sensitive matcher.
    return insensitive ? sql`${expr} LIKE ${pattern} ESCAPE '\\'` : sql`${expr} GLOB ${likeToGlob(pattern)}`;
  },

  affix(expr, text, where) {
    return sql`${expr} GLOB ${where === 'start' ? `${escapeGlob(text)}*` : `*${escapeGlob(text)}`}`;
  },

  // Set operations over (type, atom) pairs: SQLite builds a temporary index for INTERSECT and
  // EXCEPT, so an array of n elements against m values costs about (n + m) log, where a join of
  // json_each with json_each compared every pair (250,000 × 1,000 held the thread for 75 s).
  arrayHasAny(array, values: readonly JsonScalar[]) {
    if (values.length === 0) return sql`0`;
    return sql`(json_type(${array}) = 'array' AND EXISTS (${elementsOf(array)} INTERSECT ${valuesOf(values)}))`;
  },

  arrayHasAll(array, values) {
    if (values.length === 0) return sql`(json_type(${array}) = 'array')`;
    return sql`(json_type(${array}) = 'array' AND NOT EXISTS (${valuesOf(values)} EXCEPT ${elementsOf(array)}))`;
  },

  arrayContainedBy(array, values) {
    if (values.length === 0) return sql`(json_type(${array}) = 'array' AND json_array_length(${array}) = 0)`;
    return sql`(json_type(${array}) = 'array' AND NOT EXISTS (${elementsOf(array)} EXCEPT ${valuesOf(values)}))`;
  },

  jsonContains(doc, value, direction) {
    const names = { next: 0 };
    const root = { type: sql`json_type(${doc})`, atom: sql`json_extract(${doc}, '$')`, json: doc };
    return direction === 'contains' ? holds(root, value, true, names) : holdsIn(value, root, true, names);
  },

  cast(x, from, to) {
    if (from === to) return x;
    switch (to) {
      case 'string':
        if (from === 'uuid' || from === 'date' || from === 'json' || from === 'array') return x;
        if (from === 'boolean') return sql`(CASE ${x} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END)`;
        if (from === 'timestamp') return sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${x} / 1000.0, 'unixepoch')`;
        return sql`CAST(${x} AS TEXT)`;
      case 'integer':
        if (from === 'boolean' || from === 'timestamp') return x;
        if (from === 'uuid' || from === 'date' || from === 'array') return undefined;
        return sql`CAST(${x} AS INTEGER)`;
      case 'number':
        if (from === 'uuid' || from === 'date' || from === 'array') return undefined;
        return sql`CAST(${x} AS REAL)`;
      case 'boolean':
        if (from === 'integer' || from === 'number') return sql`(${x} <> 0)`;
        if (from === 'string' || from === 'json') {
          return sql`(CASE lower(trim(${x})) WHEN 'true' THEN 1 WHEN 't' THEN 1 WHEN 'yes' THEN 1 WHEN 'y' THEN 1 WHEN 'on' THEN 1 WHEN '1' THEN 1 WHEN 'false' THEN 0 WHEN 'f' THEN 0 WHEN 'no' THEN 0 WHEN 'n' THEN 0 WHEN 'off' THEN 0 WHEN '0' THEN 0 END)`;
        }
        return undefined;
      case 'date':
        if (from === 'string') return sql`date(${x})`;
        if (from === 'timestamp') return sql`date(${x} / 1000, 'unixepoch')`;
        return undefined;
      case 'timestamp':
        if (from === 'string') return sql`CAST(unixepoch(${x}, 'subsec') * 1000 AS INTEGER)`;
        if (from === 'integer') return x;
        if (from === 'number') return sql`CAST(${x} AS INTEGER)`;
        if (from === 'date') return sql`(unixepoch(${x}) * 1000)`;
        return undefined;
      case 'json':
        if (from === 'array') return x;
        if (from === 'string') return sql`(CASE WHEN json_valid(${x}) THEN json(${x}) END)`;
        if (from === 'boolean') return sql`(CASE ${x} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END)`;
        if (from === 'timestamp') return sql`json_quote(strftime('%Y-%m-%dT%H:%M:%fZ', ${x} / 1000.0, 'unixepoch'))`;
        return sql`json_quote(${x})`;
      case 'uuid':
        return from === 'string' ? sql`lower(${x})` : undefined;
      case 'array':
        return undefined;
    }
  },

  dateTrunc(unit: TruncUnit, x) {
    switch (unit) {
      // Integer division truncates epoch ms; the divisors are written inline (a bound REAL
      // would turn it into float division).
      case 'second':
        return sql`((${x} / 1000) * 1000)`;
      case 'minute':
        return sql`((${x} / 60000) * 60000)`;
      case 'hour':
        return sql`((${x} / 3600000) * 3600000)`;
      case 'day':
        return sql`((${x} / 86400000) * 86400000)`;
      case 'week':
        return sql`(unixepoch(${x} / 1000, 'unixepoch', 'weekday 0', '-6 days', 'start of day') * 1000)`;
      case 'month':
        return sql`(unixepoch(${x} / 1000, 'unixepoch', 'start of month') * 1000)`;
      case 'year':
        return sql`(unixepoch(${x} / 1000, 'unixepoch', 'start of year') * 1000)`;
    }
  },

  output(expr) {
    return expr; // decode.ts turns 0/1, epoch ms and JSON text into API values
  },

  nulls(dir, nullable) {
    if (!nullable) return sql``; // keeps ORDER BY on non-null indexed columns index-backed
    return dir === 'asc' ? sql` NULLS LAST` : sql` NULLS FIRST`;
  },

  explain(query) {
    return sql`EXPLAIN QUERY PLAN ${query}`;
  },
};
