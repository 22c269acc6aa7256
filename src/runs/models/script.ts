// The `scripted` model's script (DESIGN §5 Models): `input.script`, one step per tick. Checked
// when a run is created, so that a malformed step is a 422 at its pointer rather than a failed run.

export type ScriptStep =
  | { say: string }
  | { tools: { name: string; args?: Record<string, unknown> }[] }
  | { delegate: { input?: unknown }[] }
  | { sleep: number }
  | { echoContext: true }
  | { finish: unknown }
  | { fail: string };

const STEP_KINDS = ['say', 'tools', 'delegate', 'sleep', 'echoContext', 'finish', 'fail'] as const;
const MAX_SLEEP_MS = 60_000;
/** A script longer than any run may tick (maxTicks ≤ 1000) is refused rather than stored. */
const MAX_STEPS = 1000;
/** Delegations nest children's scripts in their inputs; deeper than this is refused. */
const MAX_NESTING = 16;

export interface Violation {
  pointer: string;
  message: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The violations of a run input's script (none when the input has no `script`). */
export function scriptViolations(input: unknown, pointer = '/input', depth = 0): Violation[] {
  if (!isObject(input) || !('script' in input)) return [];
  const out: Violation[] = [];
  const script = input.script;
  const at = `${pointer}/script`;
  if (!Array.isArray(script)) return [{ pointer: at, message: 'must be an array of steps' }];
  if (script.length > MAX_STEPS) return [{ pointer: at, message: `must have at most ${MAX_STEPS} steps` }];
  if (depth >= MAX_NESTING) return [{ pointer: at, message: `delegations nest at most ${MAX_NESTING} deep` }];
  script.forEach((step, i) => out.push(...stepViolations(step, `${at}/${i}`, depth)));
  return out;
}

function stepViolations(step: unknown, at: string, depth: number): Violation[] {
  if (!isObject(step)) return [{ pointer: at, message: `must be an object with one of ${STEP_KINDS.join(', ')}` }];
  const keys = Object.keys(step);
  const unknown = keys.filter((k) => !(STEP_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0) return unknown.map((k) => ({ pointer: `${at}/${escape(k)}`, message: `unknown step kind; expected one of ${STEP_KINDS.join(', ')}` }));
  if (keys.length !== 1) return [{ pointer: at, message: `must have exactly one of ${STEP_KINDS.join(', ')}` }];
  const kind = keys[0] as (typeof STEP_KINDS)[number];
  const value = step[kind];
  const here = `${at}/${kind}`;
  switch (kind) {
    case 'say':
    case 'fail':
      return typeof value === 'string' ? [] : [{ pointer: here, message: 'must be a string' }];
    case 'sleep':
      return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_SLEEP_MS ? [] : [{ pointer: here, message: `must be an integer from 0 to ${MAX_SLEEP_MS}` }];
    case 'echoContext':
      return value === true ? [] : [{ pointer: here, message: 'must be true' }];
    case 'finish':
      return [];
    case 'tools':
      if (!Array.isArray(value)) return [{ pointer: here, message: 'must be an array of {name, args}' }];
      return value.flatMap((call, j) => toolCallViolations(call, `${here}/${j}`));
    case 'delegate':
      if (!Array.isArray(value)) return [{ pointer: here, message: 'must be an array of {input}' }];
      return value.flatMap((child, j) => {
        const p = `${here}/${j}`;
        if (!isObject(child)) return [{ pointer: p, message: 'must be an object {input}' }];
        const extra = Object.keys(child).filter((k) => k !== 'input');
        if (extra.length > 0) return extra.map((k) => ({ pointer: `${p}/${escape(k)}`, message: 'unknown property; a delegation entry has only input' }));
        return scriptViolations(child.input, `${p}/input`, depth + 1);
      });
  }
}

function toolCallViolations(call: unknown, at: string): Violation[] {
  if (!isObject(call)) return [{ pointer: at, message: 'must be an object {name, args}' }];
  const out: Violation[] = [];
  for (const k of Object.keys(call)) if (k !== 'name' && k !== 'args') out.push({ pointer: `${at}/${escape(k)}`, message: 'unknown property; a tool call has name and args' });
  if (typeof call.name !== 'string' || call.name.length === 0) out.push({ pointer: `${at}/name`, message: 'must be a non-empty string' });
  if ('args' in call && !isObject(call.args)) out.push({ pointer: `${at}/args`, message: 'must be an object' });
  return out;
}

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The script of a run's input; a run without one plays `[{say: <input as JSON>}]`. */
export function scriptOf(input: unknown): ScriptStep[] {
  if (isObject(input) && Array.isArray(input.script)) return input.script as ScriptStep[];
  return [{ say: JSON.stringify(input ?? null) }];
}
