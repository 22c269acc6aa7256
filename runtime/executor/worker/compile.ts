// Turns a revision into a runner inside the Worker: lowcode elements become async functions
// compiled once; a node module is transpiled here, inside the sandbox (the server never transpiles
// submitted code: Bun runs macro imports while transpiling), and imported once from a blob URL.
// Module-level state therefore lives as long as the Worker, which serves exactly one revision.
import type { CodeRevision } from '../contract/index.ts';
import type { Invocation } from './invocation.ts';

export type Runner = (invocation: Invocation) => Promise<void>;

type ElementFn = (api: unknown, input: unknown, results: Record<string, unknown>) => Promise<unknown>;
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => ElementFn;

export async function compileRevision(revision: CodeRevision): Promise<Runner> {
  if (revision.kind === 'lowcode') return compileLowcode(revision.elements);
  return importNode(revision.source);
}

function compileLowcode(elements: { name: string; code: string; visible: boolean }[]): Runner {
  const compiled = elements.map((element) => {
    try {
      return { element, fn: new AsyncFunction('api', 'input', 'results', element.code) };
    } catch (err) {
      throw new Error(`element "${element.name}": ${describe(err)}`);
    }
  });
  return async (inv) => {
    const input = inv.api.input();
    for (const { element, fn } of compiled) {
      const value = await fn(inv.api, input, inv.resultsByName);
      // A caught api.throw still ends the execution.
      if (inv.thrown) return;
      if (value !== undefined) inv.setResult(element.name, value, element.visible);
    }
  };
}

/**
 * The module as a Blob this Worker imports. Bun: TypeScript or JavaScript transpiled here to
 * JavaScript. Deno has no transpiler API, but imports TypeScript itself: the Blob says it is
 * TypeScript, and Deno transpiles it while importing, inside this Worker, which has no
 * permissions. Imports were checked at save; what a module reaches here anyway (a computed
 * `import()`) the sandbox stops, not a check.
 */
const moduleBlob = (source: string): Blob =>
  'Deno' in globalThis
    ? new Blob([source], { type: 'application/typescript' })
    : new Blob([new Bun.Transpiler({ loader: 'ts', target: 'bun' }).transformSync(source)], { type: 'text/javascript' });

async function importNode(source: string): Promise<Runner> {
  const url = URL.createObjectURL(moduleBlob(source));
  let mod: { default?: unknown };
  try {
    mod = (await import(url)) as { default?: unknown };
  } finally {
    URL.revokeObjectURL(url);
  }
  const main = mod.default;
  if (typeof main !== 'function') throw new Error('the module\'s default export is not a function');
  return async (inv) => {
    const value: unknown = await (main as (api: unknown) => unknown)(inv.api);
    if (value !== undefined) inv.setResult('default', value, inv.visibleByDefault('default'));
  };
}

/** An error's message and nothing else (no stack, no source positions). */
export function describe(err: unknown): string {
  try {
    if (err instanceof Error) return err.message || err.name;
    if (typeof err === 'string') return err;
    if (err !== null && typeof err === 'object' && typeof (err as { message?: unknown }).message === 'string') {
      return (err as { message: string }).message;
    }
    return String(err);
  } catch {
    return 'unprintable error';
  }
}
