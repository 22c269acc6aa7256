// Turns guard nodes into TypeBox schemas and compiles them with TypeCompiler, once per guard.
// TypeBox's own kinds carry the common cases inline in the generated code; the custom kind
// (kinds.ts) covers what they cannot express exactly, each with a note on why.
import { Kind, Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { firstDuplicate, jsonEqual } from './equal.ts';
import type { ArrayRules, GuardNode, JsonType, NumberRules, ObjectRules, StringRules } from './ir.ts';
import { codePointLength, isMultipleOf } from './json.ts';
import { customSchema, setCheck, type Check, type CustomSchema } from './kinds.ts';
import type { NormalizedSchema } from './normalize.ts';
import { RefMemo } from './ref-memo.ts';

/** Length bounds above this are counted by a closure rather than written into a regular expression. */
const MAX_REGEX_BOUND = 1_000_000;
/** Property names TypeBox's TypeGuard refuses in an Object schema (its IsControlCharacterFree: \a to \r, ESC and DEL). */
const TYPEBOX_REFUSED_KEY = /[\x07-\x0d\x1b\x7f]/;
/**
 * A property's subschema is written inline while (its member path's length in the code × the
 * subschemas below it) stays within this, else as a function of its own (see Emitter.hoisted).
 */
const HOIST_BUDGET = 2048;
/** `value`, the checker's parameter: where every member path starts. */
const ROOT_PATH = 'value'.length;
/** Enums up to this size become `===` chains in the generated code; larger ones a Set lookup. */
const INLINE_ENUM = 16;

/** A TypeBox node built by hand: the builders clone their input, which would detach custom nodes from their checks. */
const raw = (kind: string, members: Record<string, unknown>): TSchema => ({ [Kind]: kind, ...members }) as unknown as TSchema;
const union = (list: TSchema[]): TSchema => (list.length === 1 ? list[0]! : raw('Union', { anyOf: list }));
const all = (list: TSchema[]): TSchema => (list.length === 0 ? Type.Unknown() : list.length === 1 ? list[0]! : raw('Intersect', { allOf: list }));
const not = (schema: TSchema): TSchema => raw('Not', { not: schema });
const isPrimitive = (v: unknown): v is string | number | boolean | null => v === null || ['string', 'number', 'boolean'].includes(typeof v);
/** A node with no constraint at all (`{}` or `true`). */
const isTrivial = (node: GuardNode): boolean => Object.keys(node).length === 1;

/** Compiles the normalized schema into one check function. */
export function compileGuard(schema: NormalizedSchema): Check {
  const emitter = new Emitter(schema.defs);
  const rootDef = schema.defs.get('#');
  const root = rootDef ? emitter.ref(rootDef) : emitter.node(schema.root);
  const references = emitter.emitDefinitions();
  emitter.compileDeferred(references);
  const compiled = TypeCompiler.Compile(root, references);
  if (!emitter.memo.used) return (value) => compiled.Check(value);
  return (value) => {
    emitter.memo.reset();
    return compiled.Check(value);
  };
}

interface Deferred {
  schema: CustomSchema;
  children: TSchema[];
  build: (checks: Check[]) => Check;
}

class Emitter {
  private readonly ids = new Map<GuardNode, string>();
  private readonly queue: GuardNode[] = [];
  private readonly deferred: Deferred[] = [];

  constructor(private readonly defs: Map<string, GuardNode>) {}

  readonly memo = new RefMemo();

  /**
   * A reference to a definition, emitted once under a generated `$id` (the user's names never
   * reach the code), and checked through the memo.
   */
  ref(target: GuardNode): TSchema {
    let id = this.ids.get(target);
    if (id === undefined) {
      id = `guard_def_${this.ids.size}`;
      this.ids.set(target, id);
      this.queue.push(target);
    }
    const memo = this.memo;
    memo.used = true;
    const key = id;
    return this.custom('ref', [raw('Ref', { $ref: id })], ([check]) => (value) => memo.check(key, value, check!));
  }

  /** Emits every referenced definition (more may be found on the way); returns them as TypeBox references. */
  emitDefinitions(): TSchema[] {
    const out: TSchema[] = [];
    for (let i = 0; i < this.queue.length; i++) {
      const def = this.queue[i]!;
      // Wrapped so the `$id` sits on a node of our own, whatever the body's kind.
      out.push(raw('Intersect', { allOf: [this.node(def)], $id: this.ids.get(def)! }));
    }
    return out;
  }

  /**
   * Custom nodes compile their children only now, when every definition they may reach exists.
   * Each compile gets only the reference it names: TypeBox checks every reference it is given on
   * every compile, and with all of them each time a guard of n definitions took n² (330 chained
   * definitions: ~100 ms). A TypeBox `Ref` appears only as the child of a `ref` node (definitions
   * reach each other through those nodes' checks), so no other child needs one.
   */
  compileDeferred(references: TSchema[]): void {
    const byId = new Map(references.map((r) => [r.$id, r]));
    for (const { schema, children, build } of this.deferred) {
      const checks = children.map((child): Check => {
        if (child[Kind] === 'Unknown') return () => true;
        const target = child[Kind] === 'Ref' ? byId.get((child as { $ref?: string }).$ref) : undefined;
        const compiled = TypeCompiler.Compile(child, target ? [target] : []);
        return (value) => compiled.Check(value);
      });
      setCheck(schema, build(checks));
    }
  }

  private custom(label: string, children: TSchema[], build: (checks: Check[]) => Check): CustomSchema {
    const schema = customSchema(label);
    this.deferred.push({ schema, children, build });
    return schema;
  }

  node(node: GuardNode): TSchema {
    if (node.reject) return Type.Never();
    const parts: TSchema[] = [];
    const typed = this.types(node);
    if (typed) parts.push(typed);
    if (node.enum) parts.push(this.oneOfValues(node.enum));
    if (node.const) parts.push(this.oneOfValues([node.const.value]));
    for (const child of node.allOf ?? []) parts.push(this.node(child));
    if (node.anyOf) parts.push(union(node.anyOf.map((c) => this.node(c))));
    if (node.oneOf) {
      parts.push(
        this.custom('oneOf', node.oneOf.map((c) => this.node(c)), (checks) => (value) => {
          let matched = 0;
          for (const check of checks) if (check(value) && ++matched > 1) return false;
          return matched === 1;
        }),
      );
    }
    if (node.not) parts.push(not(this.node(node.not)));
    if (node.ref?.target) parts.push(this.ref(node.ref.target));
    return all(parts);
  }

  /** The type part: the allowed types, each with the rules for that type. */
  private types(node: GuardNode): TSchema | undefined {
    const ruled = (['string', 'number', 'object', 'array'] as const).filter((t) => node[t] !== undefined);
    if (node.types === undefined) {
      // Type-specific rules bind only values of that type: "not a string, or a valid string".
      if (ruled.length === 0) return undefined;
      return all(ruled.map((t) => union([not(this.typed(t, {})), this.typed(t, node)])));
    }
    const types = node.types.includes('number') ? node.types.filter((t) => t !== 'integer') : node.types;
    return union(types.map((t) => this.typed(t, node)));
  }

  private typed(type: JsonType, rules: Pick<GuardNode, 'string' | 'number' | 'object' | 'array'>): TSchema {
    switch (type) {
      case 'null':
        return Type.Null();
      case 'boolean':
        return Type.Boolean();
      case 'number':
      case 'integer':
        return this.numberSchema(type, rules.number);
      case 'string':
        return this.stringSchema(rules.string);
      case 'object':
        return this.objectSchema(rules.object);
      case 'array':
        return this.arraySchema(rules.array);
    }
  }

  private numberSchema(type: 'number' | 'integer', rules: NumberRules = {}): TSchema {
    const { multipleOf, ...bounds } = rules;
    const exact = multipleOf !== undefined && Number.isInteger(multipleOf);
    const options = exact ? { ...bounds, multipleOf } : bounds;
    const base = type === 'integer' ? Type.Integer(options) : Type.Number(options);
    if (multipleOf === undefined || exact) return base;
    return all([base, this.custom('multipleOf', [], () => (value) => isMultipleOf(value as number, multipleOf))]);
  }

  private stringSchema(rules: StringRules = {}): TSchema {
    const min = rules.minLength ?? 0;
    const max = rules.maxLength;
    // JSON Schema counts code points, TypeBox UTF-16 units (a pair is 2). units >= points >= units/2,
    // so the base test holds necessary bounds, and the common case is settled inline by a sufficient one.
    const base = Type.String({
      ...(rules.format !== undefined ? { format: rules.format } : {}),
      ...(min > 0 ? { minLength: min } : {}),
      ...(max !== undefined ? { maxLength: 2 * max } : {}),
    });
    const parts: TSchema[] = [base];
    if (min > 0 || max !== undefined) {
      // The exact test: in Unicode mode `[\s\S]` matches one code point, and the compiled
      // expression runs inline (a custom kind costs a registry lookup, about twice the time).
      const exact =
        min <= MAX_REGEX_BOUND && (max === undefined || max <= MAX_REGEX_BOUND)
          ? raw('RegExp', { type: 'RegExp', source: `^[\\s\\S]{${min},${max ?? ''}}$`, flags: 'u' })
          : this.custom('length', [], () => (value) => {
              const length = codePointLength(value as string, max);
              return length >= min && (max === undefined || length <= max);
            });
      const settled = Type.String({ ...(min > 0 ? { minLength: 2 * min } : {}), ...(max !== undefined ? { maxLength: max } : {}) });
      parts.push(max !== undefined && 2 * min > max ? exact : union([settled, exact]));
    }
    // TypeBox's String kind builds patterns without the `u` flag; its RegExp kind takes flags. A
    // pattern that needs RE2 (pattern.ts) is checked by its matcher.
    const pattern = rules.pattern;
    if (pattern?.native) parts.push(raw('RegExp', { type: 'RegExp', source: pattern.source, flags: 'u' }));
    else if (pattern) parts.push(this.custom('pattern', [], () => (value) => typeof value === 'string' && pattern.regex.test(value)));
    return all(parts);
  }

  private objectSchema(rules: ObjectRules | undefined): TSchema {
    if (!rules) return Type.Object({});
    const keys = [...rules.properties.keys(), ...rules.required];
    // TypeBox reads `value[key]` and `key in value`, which see Object.prototype (`constructor`,
    // `__proto__`, …), its preflight check refuses property names holding a control character
    // (TYPEBOX_REFUSED_KEY: the whole guard failed to compile), and it knows one pattern at most:
    // such objects are checked by a closure.
    if (keys.some((k) => k in Object.prototype || TYPEBOX_REFUSED_KEY.test(k)) || rules.patternProperties.length > 0 || rules.propertyNames) {
      return this.objectClosure(rules);
    }
    const additional = rules.additionalProperties;
    const properties: Record<string, TSchema> = {};
    for (const [key, child] of rules.properties) {
      const required = rules.required.includes(key);
      const path = this.path + JSON.stringify(key).length + 2; // `['…']`
      properties[key] = path * weightOf(child) <= HOIST_BUDGET ? this.inPath(path, () => this.property(child, required)) : this.hoisted(this.inPath(ROOT_PATH, () => this.property(child, required)));
    }
    for (const key of rules.required) {
      if (!rules.properties.has(key)) properties[key] = additional ? this.property(additional, true) : Type.Unknown();
    }
    const schema: Record<string, unknown> = { type: 'object', properties, required: rules.required };
    // Always a function of its own: TypeBox checks it inside `every(key => …)` with the path
    // `<path>[key]`, and an object below it with additionalProperties of its own would be checked
    // in a nested `every(key => …)` whose `key` shadows the outer one (`{"a": {"b": "x"}, "b":
    // {"b": 1}}` passed `{"additionalProperties": {"additionalProperties": {"type": "integer"}}}`).
    if (additional && !isTrivial(additional)) schema.additionalProperties = additional.reject ? false : this.hoisted(this.inPath(ROOT_PATH, () => this.node(additional)));
    if (rules.minProperties !== undefined) schema.minProperties = rules.minProperties;
    if (rules.maxProperties !== undefined) schema.maxProperties = rules.maxProperties;
    return raw('Object', schema);
  }

  /**
   * Length of the member path TypeBox writes for the value being emitted (`value['a']['b']`), an
   * upper bound: custom kinds and array items restart at `value`, which is not tracked here.
   */
  private path = ROOT_PATH;

  private inPath<T>(length: number, emit: () => T): T {
    const saved = this.path;
    this.path = length;
    try {
      return emit();
    } finally {
      this.path = saved;
    }
  }

  /**
   * A subschema as a function of its own: TypeBox writes a schema with an `$id` once, as
   * `check_<id>(value)`, and calls it with the member path, where it would otherwise write the
   * whole path (`value['<name>']['<name>']…`) into every test below it: a long property name under
   * many small subschemas multiplied (a 35 KB schema wrote ~80 MB of code). The call costs a few
   * nanoseconds, so small properties stay inline (HOIST_BUDGET). `Unknown` stays inline: TypeBox
   * adds its own `key in value` test for a required property only when it sees that kind.
   */
  private hoisted(schema: TSchema): TSchema {
    if (schema[Kind] === 'Unknown') return schema;
    return raw('Intersect', { allOf: [schema], $id: `guard_sub_${this.hoistedCount++}` });
  }

  private hoistedCount = 0;

  /** A property's schema; a required one must also be present, which TypeBox checks only for some kinds. */
  private property(child: GuardNode, required: boolean): TSchema {
    const schema = this.node(child);
    const rejectsUndefined = child.types !== undefined || child.enum !== undefined || child.const !== undefined || child.reject;
    return required && !rejectsUndefined ? all([not(Type.Undefined()), schema]) : schema;
  }

  private objectClosure(rules: ObjectRules): TSchema {
    const names = [...rules.properties.keys()];
    const children = [
      ...names.map((k) => this.node(rules.properties.get(k)!)),
      ...rules.patternProperties.map((p) => this.node(p.node)),
      rules.additionalProperties ? this.node(rules.additionalProperties) : Type.Unknown(),
      rules.propertyNames ? this.node(rules.propertyNames) : Type.Unknown(),
    ];
    const { required, minProperties = 0, maxProperties = Infinity } = rules;
    const patterns = rules.patternProperties.map((p) => p.pattern.regex);
    return this.custom('object', children, (checks) => {
      const byName = new Map(names.map((k, i) => [k, checks[i]!]));
      const patternChecks = patterns.map((regex, i) => [regex, checks[names.length + i]!] as const);
      const additional = checks[names.length + patterns.length]!;
      const propertyName = checks[names.length + patterns.length + 1]!;
      return (value) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
        const keys = Object.keys(value);
        if (keys.length < minProperties || keys.length > maxProperties) return false;
        for (const key of required) if (!Object.hasOwn(value, key)) return false;
        for (const key of keys) {
          const item = (value as Record<string, unknown>)[key];
          if (!propertyName(key)) return false;
          const named = byName.get(key);
          let matched = named !== undefined;
          if (named && !named(item)) return false;
          for (const [regex, check] of patternChecks) {
            if (!regex.test(key)) continue;
            matched = true;
            if (!check(item)) return false;
          }
          if (!matched && !additional(item)) return false;
        }
        return true;
      };
    });
  }

  private arraySchema(rules: ArrayRules | undefined): TSchema {
    if (!rules) return Type.Array(Type.Unknown());
    const { prefixItems, items, contains } = rules;
    const base: Record<string, unknown> = {
      type: 'array',
      items: prefixItems.length === 0 && items ? this.node(items) : Type.Unknown(),
    };
    if (rules.minItems !== undefined) base.minItems = rules.minItems;
    if (rules.maxItems !== undefined) base.maxItems = rules.maxItems;
    const parts: TSchema[] = [raw('Array', base)];
    if (prefixItems.length > 0) {
      const children = [...prefixItems.map((p) => this.node(p)), items ? this.node(items) : Type.Unknown()];
      parts.push(
        this.custom('prefixItems', children, (checks) => {
          const rest = checks[prefixItems.length]!;
          return (value) => {
            const list = value as unknown[];
            for (let i = 0; i < list.length; i++) if (!(i < prefixItems.length ? checks[i]! : rest)(list[i])) return false;
            return true;
          };
        }),
      );
    }
    // TypeBox's contains always demands one match, while minContains: 0 allows none.
    if (contains) {
      const { minContains = 1, maxContains = Infinity } = rules;
      parts.push(
        this.custom('contains', [this.node(contains)], ([check]) => (value) => {
          let count = 0;
          for (const item of value as unknown[]) if (check!(item)) count++;
          return count >= minContains && count <= maxContains;
        }),
      );
    }
    // TypeBox hashes items with a 64-bit BigInt FNV (slow, collision-prone, and 0 differs from -0).
    if (rules.uniqueItems) parts.push(this.custom('uniqueItems', [], () => (value) => firstDuplicate(value as unknown[]) === undefined));
    return all(parts);
  }

  /** `enum` and `const`: `===` for a few primitives, else a Set plus deep equality for objects and arrays. */
  private oneOfValues(values: unknown[]): TSchema {
    if (values.length <= INLINE_ENUM && values.every(isPrimitive)) {
      return union(values.map((v) => (v === null ? Type.Null() : Type.Literal(v as string | number | boolean))));
    }
    const primitives = new Set(values.filter(isPrimitive));
    const composites = values.filter((v) => !isPrimitive(v));
    return this.custom('enum', [], () => (value) => (isPrimitive(value) ? primitives.has(value) : composites.some((c) => jsonEqual(c, value))));
  }
}

/** Subschemas and enum values at and below a node (references not followed: they are checked by a closure), an estimate of the tests TypeBox writes for it. */
function weightOf(node: GuardNode): number {
  let weight = 0;
  const stack: GuardNode[] = [node];
  while (stack.length > 0) {
    const n = stack.pop()!;
    weight += 1 + (n.enum?.length ?? 0);
    if (weight > HOIST_BUDGET) return weight;
    for (const list of [n.allOf, n.anyOf, n.oneOf, n.array?.prefixItems]) if (list) stack.push(...list);
    for (const one of [n.not, n.object?.additionalProperties, n.object?.propertyNames, n.array?.items, n.array?.contains]) if (one) stack.push(one);
    if (n.object) {
      stack.push(...n.object.properties.values());
      for (const p of n.object.patternProperties) stack.push(p.node);
    }
  }
  return weight;
}
