// Resolves a guard's `$ref`s to its own definitions (`#` and `#/$defs/<name>`), and refuses
// reference loops that never descend into the value: they would recurse forever on any input.
import type { GuardNode, RefRule } from './ir.ts';
import type { SchemaError } from './normalize.ts';

const LOCAL = /^#(?:\/(?:\$defs|definitions)\/[^/]*)?$/;

/** Fills every `target`; returns the references that name nothing and the loops found. */
export function resolveRefs(refs: readonly { rule: RefRule; at: string }[], defs: Map<string, GuardNode>): SchemaError[] {
  const errors: SchemaError[] = [];
  for (const { rule, at } of refs) {
    let key: string | undefined;
    try {
      key = '#' + decodeURIComponent(rule.ref.slice(1));
    } catch {
      key = undefined;
    }
    if (key === undefined || !rule.ref.startsWith('#') || !LOCAL.test(key)) {
      errors.push({ pointer: at, message: 'Only references within this schema are supported: "#" or "#/$defs/<name>"' });
      continue;
    }
    const target = defs.get(key);
    if (!target) errors.push({ pointer: at, message: `No definition ${key} in this schema's $defs` });
    else rule.target = target;
  }
  if (errors.length === 0) errors.push(...loops(defs));
  return errors;
}

/** A definition that reaches itself through $ref, allOf, anyOf, oneOf or not alone never terminates. */
function loops(defs: Map<string, GuardNode>): SchemaError[] {
  const state = new Map<GuardNode, 'active' | 'done'>();
  const errors: SchemaError[] = [];
  const visitDef = (def: GuardNode): void => {
    if (state.get(def) === 'done') return;
    if (state.get(def) === 'active') {
      errors.push({ pointer: def.at, message: 'This definition refers to itself without descending into a property or item, so it never terminates' });
      return;
    }
    state.set(def, 'active');
    for (const next of directRefs(def)) visitDef(next);
    state.set(def, 'done');
  };
  for (const def of defs.values()) visitDef(def);
  return errors;
}

/** Definitions a node applies to the same value (not to a property or item of it). */
function directRefs(node: GuardNode, out: GuardNode[] = []): GuardNode[] {
  if (node.ref?.target) out.push(node.ref.target);
  for (const list of [node.allOf, node.anyOf, node.oneOf]) for (const child of list ?? []) directRefs(child, out);
  if (node.not) directRefs(node.not, out);
  return out;
}
