// Explains a failed guard: walks the same normalized nodes as the compiled check and lists what
// is wrong, each with a JSON pointer into the value. Runs only after a check has failed.
import { firstDuplicate, jsonEqual } from './equal.ts';
import { formatCheck, type GuardFormat } from './formats.ts';
import type { GuardNode, JsonType } from './ir.ts';
import { codePointLength, isMultipleOf, jsonTypeOf, pointerToken, typeAccepts } from './json.ts';

export interface GuardViolation {
  pointer: string;
  message: string;
}

/** At most this many violations are reported for one value. */
export const MAX_VIOLATIONS = 50;

const show = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? text.slice(0, 57) + '...' : text;
};
const count = (n: number, noun: string) => `${n} ${n === 1 ? noun : noun === 'property' ? 'properties' : noun + 's'}`;
const article = (types: readonly JsonType[]) =>
  types.map((t) => (t === 'null' ? 'null' : ['array', 'object', 'integer'].includes(t) ? `an ${t}` : `a ${t}`)).join(' or ');

/**
 * isValid's answers for object and array values during one top-level call: anyOf/oneOf branches
 * ask about the same subtrees again and again, exponentially in its depth when they recurse.
 */
let answers: WeakMap<object, Map<GuardNode, boolean>> | null = null;

function withAnswers<T>(run: () => T): T {
  if (answers) return run();
  answers = new WeakMap();
  try {
    return run();
  } finally {
    answers = null;
  }
}

/** Every violation (up to MAX_VIOLATIONS) of `value` against `root`. */
export function listViolations(root: GuardNode, value: unknown): GuardViolation[] {
  const out: GuardViolation[] = [];
  withAnswers(() => visit(root, value, '', out));
  return out;
}

/** Whether `value` is valid: the same walk with nothing recorded, stopping at the first failure. */
function isValid(node: GuardNode, value: unknown): boolean {
  return withAnswers(() => {
    if (value === null || typeof value !== 'object') return visit(node, value, '', null);
    let byNode = answers!.get(value);
    if (!byNode) answers!.set(value, (byNode = new Map()));
    const known = byNode.get(node);
    if (known !== undefined) return known;
    const answer = visit(node, value, '', null);
    byNode.set(node, answer);
    return answer;
  });
}

function visit(node: GuardNode, value: unknown, at: string, sink: GuardViolation[] | null): boolean {
  const walk = new Walk(sink);
  walk.node(node, value, at);
  return walk.ok;
}

/** One node's walk. `sink` null: answer only. Every step returns true when the walk must stop. */
class Walk {
  ok = true;

  constructor(private readonly sink: GuardViolation[] | null) {}

  private get stop(): boolean {
    return this.sink === null ? !this.ok : this.sink.length >= MAX_VIOLATIONS;
  }

  private fail(pointer: string, message: string): boolean {
    this.ok = false;
    if (this.sink && this.sink.length < MAX_VIOLATIONS) this.sink.push({ pointer, message });
    return this.stop;
  }

  /** A subschema applied to `value` (or to a part of it at `at`); its own violations go to the sink. */
  private sub(node: GuardNode, value: unknown, at: string): boolean {
    if (!visit(node, value, at, this.sink)) this.ok = false;
    return this.stop;
  }

  node(node: GuardNode, value: unknown, at: string): boolean {
    if (node.reject) return this.fail(at, 'No value is allowed here');
    if (!typeAccepts(node.types, value)) return this.fail(at, `Expected ${article(node.types ?? [])}`);
    const type = jsonTypeOf(value);
    if (type === 'string' && node.string && this.string(node, value as string, at)) return true;
    if (type === 'number' && node.number && this.number(node, value as number, at)) return true;
    if (type === 'object' && node.object && this.object(node, value as Record<string, unknown>, at)) return true;
    if (type === 'array' && node.array && this.array(node, value as unknown[], at)) return true;
    if (node.enum && !node.enum.some((v) => jsonEqual(v, value)) && this.fail(at, `Expected one of: ${node.enum.map(show).join(', ')}`)) return true;
    if (node.const && !jsonEqual(node.const.value, value) && this.fail(at, `Expected ${show(node.const.value)}`)) return true;
    for (const child of node.allOf ?? []) if (this.sub(child, value, at)) return true;
    if (node.anyOf && !node.anyOf.some((c) => isValid(c, value))) {
      if (this.branches(node.anyOf, value, at, 'Expected a value matching at least one of the anyOf schemas')) return true;
    }
    if (node.oneOf) {
      const matched = node.oneOf.filter((c) => isValid(c, value)).length;
      if (matched === 0 && this.branches(node.oneOf, value, at, 'Expected a value matching exactly one of the oneOf schemas')) return true;
      if (matched > 1 && this.fail(at, `Expected a value matching exactly one of the oneOf schemas, but it matches ${matched}`)) return true;
    }
    if (node.not && isValid(node.not, value) && this.fail(at, 'Expected a value not matching the "not" schema')) return true;
    if (node.ref?.target && this.sub(node.ref.target, value, at)) return true;
    return this.stop;
  }

  private string(node: GuardNode, value: string, at: string): boolean {
    const { minLength, maxLength, pattern, format } = node.string!;
    if (minLength !== undefined || maxLength !== undefined) {
      const length = codePointLength(value);
      if (minLength !== undefined && length < minLength && this.fail(at, `Expected at least ${count(minLength, 'character')}`)) return true;
      if (maxLength !== undefined && length > maxLength && this.fail(at, `Expected at most ${count(maxLength, 'character')}`)) return true;
    }
    if (format !== undefined && !formatCheck(format as GuardFormat)(value) && this.fail(at, `Expected a valid ${format}`)) return true;
    if (pattern && !pattern.regex.test(value) && this.fail(at, `Expected to match the pattern ${pattern.source}`)) return true;
    return false;
  }

  private number(node: GuardNode, value: number, at: string): boolean {
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = node.number!;
    if (minimum !== undefined && value < minimum && this.fail(at, `Expected a number >= ${minimum}`)) return true;
    if (maximum !== undefined && value > maximum && this.fail(at, `Expected a number <= ${maximum}`)) return true;
    if (exclusiveMinimum !== undefined && value <= exclusiveMinimum && this.fail(at, `Expected a number > ${exclusiveMinimum}`)) return true;
    if (exclusiveMaximum !== undefined && value >= exclusiveMaximum && this.fail(at, `Expected a number < ${exclusiveMaximum}`)) return true;
    if (multipleOf !== undefined) {
      const multiple = Number.isInteger(multipleOf) ? value % multipleOf === 0 : isMultipleOf(value, multipleOf);
      if (!multiple && this.fail(at, `Expected a multiple of ${multipleOf}`)) return true;
    }
    return false;
  }

  private object(node: GuardNode, value: Record<string, unknown>, at: string): boolean {
    const rules = node.object!;
    const keys = Object.keys(value);
    if (rules.minProperties !== undefined && keys.length < rules.minProperties && this.fail(at, `Expected at least ${count(rules.minProperties, 'property')}`)) return true;
    if (rules.maxProperties !== undefined && keys.length > rules.maxProperties && this.fail(at, `Expected at most ${count(rules.maxProperties, 'property')}`)) return true;
    for (const key of rules.required) {
      if (!Object.hasOwn(value, key) && this.fail(`${at}/${pointerToken(key)}`, 'Required property is missing')) return true;
    }
    for (const key of keys) {
      const where = `${at}/${pointerToken(key)}`;
      const item = value[key];
      if (rules.propertyNames && !isValid(rules.propertyNames, key) && this.fail(where, 'Property name is not allowed')) return true;
      const named = rules.properties.get(key);
      let matched = named !== undefined;
      if (named && this.sub(named, item, where)) return true;
      for (const { pattern, node: child } of rules.patternProperties) {
        if (!pattern.regex.test(key)) continue;
        matched = true;
        if (this.sub(child, item, where)) return true;
      }
      const additional = rules.additionalProperties;
      if (matched || !additional) continue;
      if (additional.reject ? this.fail(where, 'Unknown property') : this.sub(additional, item, where)) return true;
    }
    return false;
  }

  private array(node: GuardNode, value: unknown[], at: string): boolean {
    const rules = node.array!;
    if (rules.minItems !== undefined && value.length < rules.minItems && this.fail(at, `Expected at least ${count(rules.minItems, 'item')}`)) return true;
    if (rules.maxItems !== undefined && value.length > rules.maxItems && this.fail(at, `Expected at most ${count(rules.maxItems, 'item')}`)) return true;
    for (let i = 0; i < value.length; i++) {
      const child = i < rules.prefixItems.length ? rules.prefixItems[i] : rules.items;
      if (!child) continue;
      if (child.reject) {
        // `items: false` after prefixItems: one report for the first extra item, not one per item.
        if (this.fail(`${at}/${i}`, `Expected at most ${count(i, 'item')}`)) return true;
        break;
      }
      if (this.sub(child, value[i], `${at}/${i}`)) return true;
    }
    if (rules.contains) {
      const { minContains = 1, maxContains = Infinity } = rules;
      const matches = value.filter((item) => isValid(rules.contains!, item)).length;
      if (matches < minContains && this.fail(at, `Expected at least ${count(minContains, 'item')} matching "contains"`)) return true;
      if (matches > maxContains && this.fail(at, `Expected at most ${count(maxContains, 'item')} matching "contains"`)) return true;
    }
    if (rules.uniqueItems) {
      const pair = firstDuplicate(value);
      if (pair && this.fail(`${at}/${pair[1]}`, `Expected unique items; this one equals item ${pair[0]}`)) return true;
    }
    return false;
  }

  /**
   * No anyOf/oneOf branch matched. The useful report is the branch the caller was aiming at: the
   * only one of the right type, or the only one whose `const` properties all match (a
   * discriminator). Otherwise one generic message.
   */
  private branches(branches: GuardNode[], value: unknown, at: string, generic: string): boolean {
    if (this.sink === null) return this.fail(at, generic);
    let candidates = branches.filter((b) => typeAccepts(b.types, value));
    if (candidates.length > 1 && jsonTypeOf(value) === 'object') {
      const object = value as Record<string, unknown>;
      const discriminated = candidates.filter((b) => {
        const consts = [...(b.object?.properties ?? [])].filter(([, p]) => p.const !== undefined);
        return consts.length > 0 && consts.every(([k, p]) => Object.hasOwn(object, k) && jsonEqual(p.const!.value, object[k]));
      });
      if (discriminated.length > 0) candidates = discriminated;
    }
    if (candidates.length !== 1) return this.fail(at, generic);
    const before = this.sink.length;
    const stop = this.sub(candidates[0]!, value, at);
    this.ok = false;
    return this.sink.length === before ? this.fail(at, generic) : stop;
  }
}
