// A GET Endpoint's guard validates the query string. queryToObject gives the query as an object
// of strings; the coercion plan, read from the schema once at compile time, converts the strings
// of properties declared integer, number or boolean (and arrays of them) when they parse cleanly.
import type { GuardNode, JsonType } from './ir.ts';
import { jsonTypeOf } from './json.ts';

export type QueryObject = Record<string, string | string[]>;

/** `?a=1&b=x&b=y` → `{a: '1', b: ['x', 'y']}`: a repeated key becomes an array, in order. */
export function queryToObject(params: URLSearchParams): QueryObject {
  const out: QueryObject = {};
  for (const [key, value] of params) {
    const existing = Object.hasOwn(out, key) ? out[key] : undefined;
    const next = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
    // Plain assignment to `__proto__` would set the prototype instead of a property.
    Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

interface Conversion {
  number: boolean;
  boolean: boolean;
}

interface FieldPlan {
  scalar?: Conversion;
  /** The property is an array: a lone value is wrapped; `items` converts each element. */
  array?: { items?: Conversion };
}

export type QueryPlan = Map<string, FieldPlan>;

// JSON's number grammar: no `0x`, no `Infinity`, no blanks, no empty string.
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const INTEGER_TEXT = /^-?\d+$/;
const MAX_HOPS = 32;

/** Reads the plan from the root's `properties` (directly, through `$ref` or `allOf`). */
export function planQuery(root: GuardNode): QueryPlan {
  const plan: QueryPlan = new Map();
  for (const [name, node] of properties(root, 0)) {
    if (plan.has(name)) continue;
    const types = declaredTypes(node, 0);
    const field: FieldPlan = {};
    if (types?.includes('array') && !types.includes('string')) {
      const items = node.array?.items ?? node.ref?.target?.array?.items;
      const conversion = items ? conversionFor(declaredTypes(items, 0)) : undefined;
      field.array = conversion ? { items: conversion } : {};
    }
    const scalar = conversionFor(types);
    if (scalar) field.scalar = scalar;
    if (field.array || field.scalar) plan.set(name, field);
  }
  return plan;
}

/** A new object with the planned conversions applied; values that do not parse cleanly stay strings. */
export function coerceQuery(plan: QueryPlan, query: QueryObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(query)) {
    const raw = query[key]!;
    const field = plan.get(key);
    let value: unknown = raw;
    if (field?.array) {
      const list = Array.isArray(raw) ? raw : [raw];
      const items = field.array.items;
      value = items ? list.map((s) => convert(items, s)) : list;
    } else if (field?.scalar && !Array.isArray(raw)) {
      value = convert(field.scalar, raw);
    }
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function convert(conversion: Conversion, text: string): unknown {
  if (conversion.boolean && (text === 'true' || text === 'false')) return text === 'true';
  if (conversion.number && NUMBER.test(text)) {
    const n = Number(text);
    // "12345678901234567890" would silently lose digits: keep the text, so validation says why.
    if (Number.isFinite(n) && (!INTEGER_TEXT.test(text) || Number.isSafeInteger(n))) return n;
  }
  return text;
}

function conversionFor(types: readonly JsonType[] | undefined): Conversion | undefined {
  if (!types || types.includes('string')) return undefined;
  const number = types.includes('number') || types.includes('integer');
  const boolean = types.includes('boolean');
  return number || boolean ? { number, boolean } : undefined;
}

/** The types a node declares: `type`, else those of its enum/const values, else through `$ref` or `allOf`. */
function declaredTypes(node: GuardNode, hops: number): JsonType[] | undefined {
  if (node.types) return node.types;
  const values = node.enum ?? (node.const ? [node.const.value] : undefined);
  if (values) {
    const kinds = new Set<JsonType>();
    for (const v of values) {
      const kind = jsonTypeOf(v);
      if (kind) kinds.add(kind);
    }
    return [...kinds];
  }
  if (hops >= MAX_HOPS) return undefined;
  if (node.ref?.target) return declaredTypes(node.ref.target, hops + 1);
  for (const child of node.allOf ?? []) {
    const found = declaredTypes(child, hops + 1);
    if (found) return found;
  }
  return undefined;
}

function properties(node: GuardNode, hops: number): [string, GuardNode][] {
  if (hops >= MAX_HOPS) return [];
  const own = [...(node.object?.properties ?? [])];
  const viaRef = node.ref?.target ? properties(node.ref.target, hops + 1) : [];
  const viaAllOf = (node.allOf ?? []).flatMap((child) => properties(child, hops + 1));
  return [...own, ...viaRef, ...viaAllOf];
}
