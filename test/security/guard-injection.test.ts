// Guard schemas are compiled into JavaScript in the server (runtime/guard/emit.ts hands TypeBox's
// TypeCompiler a schema, and TypeBox writes a checker and evaluates it with `new Function`). The
// README's claim under test: a schema's values reach that code only as escaped literals. Every
// generated checker is captured here and parsed with @babel/parser (which runs nothing): a value
// that broke out of its literal would show up as an identifier or statement of its own. Hostile
// values are tried in every place a schema can carry text or numbers, through the compiler
// directly (with a property-based fuzz) and through the control plane and the runtime: inline
// Endpoint guards, json-validator components used as guards, and node components' declared result
// schemas. A payload that ran would set a globalThis flag or write a marker file in os.tmpdir().
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from '@babel/parser';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import fc from 'fast-check';
import { compileGuardSchema, type CompiledGuard } from '../../runtime/guard/index.ts';
import { activateDeployment, deployed } from '../helpers/deployments.ts';
import { startStack, type Stack } from '../helpers/stack.ts';

const FLAG = '__guardInjectionPwned';
const MARKER = join(tmpdir(), `guard-injection-marker-${process.pid}`);
const flagged = (): unknown => (globalThis as Record<string, unknown>)[FLAG];
afterAll(() => rmSync(MARKER, { force: true }));

/** Statements that would set the flag and write the marker, were they ever evaluated. */
const RUN = `globalThis.${FLAG}=1,process.getBuiltinModule('node:fs').writeFileSync(${JSON.stringify(MARKER)},'x')`;

/** Strings built to close a string literal, a regular expression, a template, a comment or a line of the generated code. */
const HOSTILE: string[] = [
  "'",
  '"',
  '\\',
  '`',
  "\\'",
  "'+(" + RUN + ")+'",
  "');" + RUN + ";('",
  "'];" + RUN + ";//",
  '"];' + RUN + ';//',
  "\\'];" + RUN + ';//',
  '${' + RUN + '}',
  '`+(' + RUN + ')+`',
  '*/' + RUN + '/*',
  '\n' + RUN + '//',
  '\r' + RUN + '//',
  '\u2028' + RUN + '//',
  '\u2029' + RUN + '//',
  "'\u2028" + RUN + '//',
  '</script><script>' + RUN + '</script>',
  '\\u0027);' + RUN + '//',
  '\\x27);' + RUN + '//',
  '\x1b[31m',
  '\x7f',
  '\u00a0\ufeff',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'value',
  'check',
  'kind',
  'format',
  'hash',
  'key',
  'local_0',
  'check_guard_95_def_95_0',
  ') || true || (',
  '😀ключ',
];

// ------------------------------------------------------------------------------------------------
// The generated code, captured.

const generated: string[] = [];
const originalCompile = TypeCompiler.Compile;
beforeAll(() => {
  (TypeCompiler as { Compile: typeof TypeCompiler.Compile }).Compile = ((...args: Parameters<typeof TypeCompiler.Compile>) => {
    const compiled = originalCompile(...args);
    generated.push(compiled.Code());
    return compiled;
  }) as typeof TypeCompiler.Compile;
});
afterAll(() => {
  (TypeCompiler as { Compile: typeof TypeCompiler.Compile }).Compile = originalCompile;
});

/**
 * Every identifier the checkers TypeBox writes for our emitter use: its parameters (`value`, the
 * registry callbacks `kind`/`format`/`hash`), its locals, the hoisted definition functions
 * (`check_` + an encoded generated id) and the built-ins it calls. A schema value that escaped its
 * literal would add a name outside this list (globalThis, process, …) or a statement of its own.
 */
const ALLOWED_IDENTIFIER =
  /^(?:value|check|check_guard_95_(?:def|sub)_95_\d+|local_\d+|kind|format|hash|key|array|acc|element|set|count|Number|Array|Object|Set|isFinite|isInteger|isArray|getOwnPropertyNames|length|every|includes|test|reduce|has|add|undefined|Infinity)$/;

/** Identifiers and statement kinds of one generated checker, parsed without running it. */
function shapeOf(code: string): { identifiers: Set<string>; statements: string[] } {
  const file = parse(code, { sourceType: 'script', allowReturnOutsideFunction: true });
  const identifiers = new Set<string>();
  const stack: unknown[] = [file.program];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    const n = node as { type?: string; name?: string };
    if (n.type === 'Identifier' && typeof n.name === 'string') identifiers.add(n.name);
    for (const [k, v] of Object.entries(node)) if (k !== 'loc' && v !== null && typeof v === 'object') stack.push(v);
  }
  return { identifiers, statements: file.program.body.map((s) => s.type) };
}

/** Compiles a schema and checks every checker generated for it: parses, only known names, only declarations and one return. */
function compileAndInspect(schema: unknown): { guard: CompiledGuard | null; errors: unknown; codes: string[] } {
  const from = generated.length;
  const result = compileGuardSchema(schema);
  const codes = generated.slice(from);
  for (const code of codes) {
    const { identifiers, statements } = shapeOf(code);
    const unknown = [...identifiers].filter((name) => !ALLOWED_IDENTIFIER.test(name));
    expect({ unknown, code: unknown.length > 0 ? code : '' }).toEqual({ unknown: [], code: '' });
    // `const local_N = /…/u;` lines, hoisted `function check_…` declarations, then `return function check`.
    expect(statements.at(-1)).toBe('ReturnStatement');
    for (const s of statements.slice(0, -1)) expect(['VariableDeclaration', 'FunctionDeclaration']).toContain(s);
  }
  return result.ok ? { guard: result.guard, errors: null, codes } : { guard: null, errors: result.errors, codes };
}

const nothingRan = (): void => {
  expect(flagged()).toBeUndefined();
  expect(existsSync(MARKER)).toBe(false);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
};

/** As a stored definition is: parsed from JSON, so `__proto__` is an own key. */
const asStored = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

// ------------------------------------------------------------------------------------------------

describe('hostile strings in every place a schema carries text (compiler)', () => {
  test('property names, required names and const values: literals only, and checked literally', () => {
    for (const name of HOSTILE) {
      const schema = asStored({ type: 'object', properties: { [name]: { const: name }, plain: { type: 'string' } }, required: [name], additionalProperties: false });
      const { guard, codes } = compileAndInspect(schema);
      expect(guard).not.toBeNull();
      expect(codes.length).toBeGreaterThan(0);
      expect(guard!.check(asStored({ [name]: name }))).toBe(true);
      expect(guard!.check(asStored({ [name]: name + 'x' }))).toBe(false);
      expect(guard!.check({})).toBe(false);
      expect(guard!.check(asStored({ [name]: name, other: 1 }))).toBe(false);
      expect(guard!.violations({}).length).toBeGreaterThan(0);
    }
    nothingRan();
  });

  // Was a bug (fixed with this test in runtime/guard/emit.ts): TypeBox's preflight TypeGuard refuses
  // an Object schema whose property names hold \a…\r, ESC or DEL, so a valid guard such as
  // {"properties": {"a\tb": …}} was refused at save time with "The schema could not be compiled:
  // Preflight validation check failed" (compile.ts calls reaching that "our bug"). Such objects now
  // go to the closure, as prototype-named ones do.
  test('property names holding control characters compile and are checked', () => {
    for (const c of ['\x07', '\b', '\t', '\n', '\v', '\f', '\r', '\x1b', '\x7f', '\x00', '\x1f']) {
      const name = `a${c}b`;
      for (const schema of [
        { type: 'object', properties: { [name]: { type: 'integer' } }, required: [name] },
        { type: 'object', properties: { ok: {} }, required: [name], additionalProperties: false },
      ]) {
        const { guard, errors } = compileAndInspect(schema);
        expect({ name, errors }).toEqual({ name, errors: null });
        expect(guard!.check({ [name]: 1 })).toBe(schema.additionalProperties === false ? false : true);
        expect(guard!.check({ ok: 1 })).toBe(false);
      }
    }
  });

  test('enum of many hostile strings (inline === chain up to 16, a Set beyond)', () => {
    for (const values of [HOSTILE.slice(0, 16), HOSTILE]) {
      const { guard } = compileAndInspect(asStored({ enum: values }));
      for (const v of values) expect(guard!.check(v)).toBe(true);
      expect(guard!.check('none of them')).toBe(false);
    }
    nothingRan();
  });

  test('$defs names never reach the code (generated ids do), in any spelling of the $ref', () => {
    for (const name of HOSTILE) {
      const ref = `#/$defs/${encodeURIComponent(name.replace(/~/g, '~0').replace(/\//g, '~1'))}`;
      const schema = asStored({ $defs: { [name]: { type: 'array', items: { $ref: ref } } }, $ref: ref });
      const { guard, errors } = compileAndInspect(schema);
      expect(errors).toBeNull();
      expect(guard!.check([[], [[]]])).toBe(true);
      expect(guard!.check([[1]])).toBe(false);
    }
    nothingRan();
  });

  test('annotations (title, description, default, examples, $comment, x-…) are never compiled', () => {
    for (const text of HOSTILE) {
      const { guard, codes } = compileAndInspect(asStored({ type: 'string', title: text, description: text, default: text, examples: [text, { [text]: text }], $comment: text, 'x-hostile': text, deprecated: true }));
      expect(guard!.check('s')).toBe(true);
      for (const code of codes) expect(code).not.toContain(FLAG);
    }
    nothingRan();
  });

  test('format: only the documented names are accepted; anything else is a 422-style error, not code', () => {
    for (const text of HOSTILE) {
      const { guard, errors } = compileAndInspect({ type: 'string', format: text });
      expect(guard).toBeNull();
      expect(errors).toEqual([{ pointer: '/format', message: expect.stringContaining('Unknown format') }]);
    }
    nothingRan();
  });

  test('patternProperties keys and propertyNames (checked by a closure, never written into code)', () => {
    for (const name of HOSTILE) {
      const source = name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      const { guard, errors } = compileAndInspect(asStored({ type: 'object', patternProperties: { [`^${source}$`]: { const: 1 } }, propertyNames: { maxLength: 1000 } }));
      expect(errors).toBeNull();
      expect(guard!.check(asStored({ [name]: 1 }))).toBe(true);
      expect(guard!.check(asStored({ [name]: 2 }))).toBe(false);
    }
    nothingRan();
  });
});

describe('patterns: written into the checker as regular-expression literals', () => {
  // Each is valid in Unicode mode and native (no unbounded quantifier), so it reaches TypeBox's
  // RegExp kind: `const local_N = ${new RegExp(source, 'u')}`, i.e. the engine's own escaping.
  const PATTERNS = [
    '/',
    '^/$',
    '[/]',
    '\\/',
    '[\\]/]',
    '(?:/)',
    '[^/]/',
    '\\n/',
    '\n',
    '\r',
    '\u2028',
    '\u2029',
    '[\n\u2028]',
    "'",
    '"',
    '`',
    '\\u{2f}',
    '\\p{L}/',
    '(?<n>/)',
    '/u;' + RUN + ';/',
    '[/u;' + RUN + ';/]',
    '\\/u;' + RUN + '//',
    '\n' + RUN + '//',
    '\u2028' + RUN + '//',
    '//' + RUN,
    '</script>',
  ];

  test('a hostile pattern compiles to exactly one regular expression that means what the source says', () => {
    for (const source of PATTERNS) {
      let reference: RegExp;
      try {
        reference = new RegExp(source, 'u');
      } catch {
        const { guard } = compileAndInspect({ type: 'string', pattern: source });
        expect(guard).toBeNull();
        continue;
      }
      const { guard, codes } = compileAndInspect({ type: 'string', pattern: source, maxLength: 2000 });
      expect(guard).not.toBeNull();
      // The literal TypeBox wrote reads back as the same pattern.
      const literal = codes.flatMap((code) => [...code.matchAll(/^const local_\d+ = (.*);$/gm)].map((m) => m[1]!)).find((l) => l !== '/^[\\s\\S]{0,2000}$/u');
      expect(literal).toBeDefined();
      const declaration = parse(`const x = ${literal};`).program.body[0] as unknown as { declarations: { init: { type: string; pattern: string; flags: string } }[] };
      expect(declaration.declarations[0]!.init).toMatchObject({ type: 'RegExpLiteral', pattern: reference.source, flags: 'u' });
      for (const sample of ['', source, '/', 'a', '\n', '\u2028', RUN]) expect(guard!.check(sample)).toBe(reference.test(sample));
    }
    nothingRan();
  });

  test('fuzz: random patterns over the characters that end literals, classes, groups and lines', () => {
    const alphabet = ['/', '\\', '[', ']', '(', ')', '?', ':', '<', '>', '^', '$', '|', '{', '}', ',', '1', 'a', 'u', 'n', '\n', '\r', '\u2028', '\u2029', "'", '"', '`', '*', ';', ' ', '-'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 24 }), (chars) => {
        const source = chars.join('');
        let reference: RegExp | null = null;
        try {
          reference = new RegExp(source, 'u');
        } catch {
          // invalid in Unicode mode: the guard refuses it
        }
        const { guard } = compileAndInspect({ type: 'string', pattern: source, maxLength: 100 });
        if (reference === null) {
          expect(guard).toBeNull();
          return;
        }
        if (guard) for (const sample of ['', source, 'a/u', '\n']) expect(guard.check(sample)).toBe(reference.test(sample));
      }),
      { numRuns: 1500, seed: 20_261_128 },
    );
    nothingRan();
  });
});

describe('numbers: only finite JSON numbers are written into the checker', () => {
  test('bounds at the edges of a double are literal numbers; non-finite ones are refused', () => {
    for (const n of [Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, -0, 1e21, 1e-7, 2 ** 53 + 2, -1]) {
      const { guard } = compileAndInspect({ type: 'number', minimum: -Math.abs(n), maximum: Math.abs(n), exclusiveMaximum: Number.MAX_VALUE, multipleOf: Math.abs(n) || 1 });
      expect(guard).not.toBeNull();
    }
    for (const bad of [Infinity, -Infinity, NaN]) {
      for (const keyword of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']) {
        expect(compileAndInspect({ type: 'number', [keyword]: bad }).guard).toBeNull();
      }
      for (const keyword of ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'minContains', 'maxContains']) {
        expect(compileAndInspect({ [keyword]: bad }).guard).toBeNull();
      }
    }
    nothingRan();
  });

  test('huge counts are written as numbers (2 * 1.7e308 is Infinity, a harmless global), and mean what they say', () => {
    const { guard } = compileAndInspect({ type: 'string', minLength: 1, maxLength: Number.MAX_VALUE });
    expect(guard!.check('x')).toBe(true);
    expect(guard!.check('')).toBe(false);
    const { guard: items } = compileAndInspect({ type: 'array', minItems: 0, maxItems: 1e300, minContains: 0, maxContains: 1e300, contains: {} });
    expect(items!.check([1])).toBe(true);
    nothingRan();
  });

  test('enum and const numbers, including ones JSON.parse turns into Infinity (1e400), are literals or closures', () => {
    for (const values of [[1e400, -1e400, 0, -0, 5e-324, 1.5], [JSON.parse('1e400'), 'x']]) {
      const { guard } = compileAndInspect({ enum: values });
      expect(guard!.check(1.5) || guard!.check('x')).toBe(true);
      expect(guard!.check(2)).toBe(false);
    }
    nothingRan();
  });
});

describe('fuzz: arbitrary unicode in names, required lists, const and enum', () => {
  test('every generated checker parses to declarations and a return, with known names only, and checks the values literally', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 12 }), { minLength: 1, maxLength: 5 }), fc.oneof(fc.string({ unit: 'binary', maxLength: 16 }), fc.constantFrom(...HOSTILE)), (names, text) => {
        const unique = [...new Set(names)];
        const schema = asStored({
          type: 'object',
          properties: Object.fromEntries(unique.map((n) => [n, { const: text }])),
          required: unique,
          additionalProperties: { enum: [text, ...unique] },
        });
        const { guard } = compileAndInspect(schema);
        expect(guard).not.toBeNull();
        const value = asStored(Object.fromEntries(unique.map((n) => [n, text])));
        expect(guard!.check(value)).toBe(true);
        expect(guard!.check(asStored({ ...value, [unique[0]!]: `${text}!` }))).toBe(false);
      }),
      { numRuns: 400, seed: 20_261_129 },
    );
    nothingRan();
  });
});

// ------------------------------------------------------------------------------------------------
// Generated-code size: was a real bug (severity medium-high, availability), fixed with this test.

describe('the size of the generated checker', () => {
  // Was a bug (guard code blow-up), fixed in runtime/guard/emit.ts (each property's check is hoisted
  // into a function of its own): TypeBox writes the full member path (`value['<name>']…`) into
  // every test of a property's subschema, so a long property name repeated by many small
  // subschemas multiplied. A 35 KB schema (one 10,000-character property holding 500 `enum`s of 16
  // numbers), within every documented limit, generated ~80 MB of JavaScript; 62 KB generated
  // ~312 MB (4 s of a blocked event loop, 1.6 GB of memory), and 30 nested 800-character names
  // over 400 string leaves 78 MB (1.2 s, 1.5 GB). It happened on every save of a json-validator
  // component, every validate/activate of an Endpoint with an inline guard and every index build
  // compiling the guard, and the checker kept its source alive while the guard was in the index.
  test('a 35 KB schema does not make TypeBox write megabytes of code', () => {
    const schema = { type: 'object', properties: { ['k'.repeat(10_000)]: { anyOf: Array.from({ length: 500 }, () => ({ enum: Array.from({ length: 16 }, (_, i) => i) })) } } };
    expect(JSON.stringify(schema).length).toBeLessThan(36_000);
    const from = generated.length;
    const started = performance.now();
    const result = compileGuardSchema(schema);
    const elapsed = performance.now() - started;
    const size = generated.slice(from).reduce((n, code) => n + code.length, 0);
    generated.length = from; // do not keep 80 MB of captured code alive
    // Either refused at save time or compiled to code of the schema's order of size.
    if (result.ok) expect(size).toBeLessThan(2_000_000);
    expect(elapsed).toBeLessThan(250);
  });

  test('every shape that multiplied the path stays under 1 MB of code (was 13-312 MB, up to 16 s)', () => {
    const key = (d: number, length: number) => String.fromCharCode(97 + (d % 26)).repeat(length);
    const enums = (count: number) => ({ anyOf: Array.from({ length: count }, () => ({ enum: Array.from({ length: 16 }, (_, i) => i) })) });
    const shapes: Record<string, unknown> = {};
    let a: unknown = enums(600);
    for (let d = 0; d < 31; d++) a = { type: 'object', properties: { [key(d, 40)]: a } };
    shapes['31 nested 40-character names over 600 enums'] = a;
    let b: unknown = enums(500);
    for (let d = 0; d < 15; d++) b = { type: 'object', additionalProperties: { type: 'object', properties: { [key(d, 1000)]: b } } };
    shapes['additionalProperties and 1000-character names, 15 deep'] = b;
    shapes['one 30,000-character name over 650 enums'] = { type: 'object', properties: { ['k'.repeat(30_000)]: enums(650) } };
    for (const [name, schema] of Object.entries(shapes)) {
      expect(JSON.stringify(schema).length).toBeLessThan(64 * 1024);
      const from = generated.length;
      const started = performance.now();
      const result = compileGuardSchema(schema);
      const elapsed = performance.now() - started;
      const size = generated.slice(from).reduce((n, code) => n + code.length, 0);
      generated.length = from;
      expect({ name, ok: result.ok, small: size < 1_000_000, fast: elapsed < 2000 }).toEqual({ name, ok: true, small: true, fast: true });
    }
  });

  test('a small guard is written exactly as before (no function per property on the hot path)', () => {
    const from = generated.length;
    compileGuardSchema({ type: 'object', properties: { name: { type: 'string', maxLength: 64 }, qty: { type: 'integer', minimum: 1 }, tags: { type: 'array', items: { enum: ['a', 'b'] } } }, required: ['name'], additionalProperties: false });
    const code = generated.slice(from).join('\n');
    expect(code).not.toContain('check_guard_95_sub');
  });

  test('nested long property names: the path is written once per property, not into every test below it', () => {
    const key = (d: number) => String.fromCharCode(97 + (d % 26)).repeat(800);
    let schema: Record<string, unknown> = { anyOf: Array.from({ length: 400 }, (_, i) => ({ type: 'string', minLength: 1, maxLength: 2 + i })) };
    for (let d = 0; d < 30; d++) schema = { type: 'object', properties: { [key(d)]: schema }, required: d % 2 ? [key(d)] : [] };
    expect(JSON.stringify(schema).length).toBeLessThan(64 * 1024);
    const from = generated.length;
    const result = compileGuardSchema(schema);
    const size = generated.slice(from).reduce((n, code) => n + code.length, 0);
    generated.length = from;
    expect(result.ok).toBe(true);
    expect(size).toBeLessThan(1_000_000);
    // Still the same checks: the leaf, the required levels, the types on the way.
    let value: unknown = 'x';
    for (let d = 0; d < 30; d++) value = { [key(d)]: value };
    let missingOdd: unknown = {};
    for (let d = 1; d < 30; d++) missingOdd = { [key(d)]: missingOdd };
    if (!result.ok) return;
    expect(result.guard.check(value)).toBe(true);
    expect(result.guard.check(JSON.parse(JSON.stringify(value).replace('"x"', '""')))).toBe(false);
    expect(result.guard.check(JSON.parse(JSON.stringify(value).replace('"x"', '1')))).toBe(false);
    expect(result.guard.check(missingOdd)).toBe(true); // the innermost level (d = 0) is optional
    expect(result.guard.check({})).toBe(false); // the outermost (d = 29) is required
  });
});

describe('nested additionalProperties schemas', () => {
  // Was a bug (guard bypass, severity medium-high), fixed with this test in runtime/guard/emit.ts:
  // TypeBox checks an additionalProperties schema inside `every(key => …)` with the path
  // `value[key]`, and an object below it with additionalProperties of its own got a nested
  // `every(key => … value[key][key] …)` whose `key` shadows the outer one. The inner values were
  // then read from the wrong member: a map of maps of integers accepted {"a": {"b": "x"},
  // "b": {"b": 1}} (a[b] checked as b[b]) and refused the valid {"a": {"b": 1}} (b[b] is missing),
  // with the report "The value does not match the schema". Each additionalProperties schema is
  // now a function of its own, so every `key` is its own function's.
  const mapOfMaps = { type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: 'integer' } } };

  test('a map of maps: the inner values are the ones checked', () => {
    const { guard } = compileAndInspect(mapOfMaps);
    expect(guard!.check({ a: { b: 1 } })).toBe(true);
    expect(guard!.check({ a: { b: 1, c: 2 }, d: {} })).toBe(true);
    expect(guard!.check({ a: { b: 'x' }, b: { b: 1 } })).toBe(false);
    expect(guard!.violations({ a: { b: 'x' }, b: { b: 1 } })).toEqual([{ pointer: '/a/b', message: 'Expected an integer' }]);
    expect(guard!.check({ a: { b: 1 }, b: { a: 'x' } })).toBe(false);
  });

  test('three levels, through properties and allOf on the way', () => {
    const { guard } = compileAndInspect({
      type: 'object',
      additionalProperties: { type: 'object', properties: { p: { type: 'object', additionalProperties: { allOf: [{ type: 'object', additionalProperties: { enum: ['ok'] } }] } } } },
    });
    expect(guard!.check({ a: { p: { b: { c: 'ok' } } } })).toBe(true);
    expect(guard!.check({ a: { p: { b: { c: 'no' } } }, b: { p: { b: { c: 'ok' } } }, c: 'ok' })).toBe(false);
    expect(guard!.check({ a: { p: { b: { c: 'no' } } }, p: { b: { c: 'ok' } }, b: { c: 'ok' } })).toBe(false);
  });

  test('through the runtime: the bypassing body is refused, the valid one passes', async () => {
    const s = await startStack();
    try {
      const e = await s.endpoint({ method: 'POST', path: '/map-of-maps', guard: { type: 'inline', schema: mapOfMaps }, staticResponse: { status: 200, body: { ok: true } } });
      expect((await s.invoke('POST', e.path, { body: { a: { b: 1 } } })).status).toBe(200);
      const bypass = await s.invoke('POST', e.path, { body: { a: { b: 'DROP TABLE' }, b: { b: 1 } } });
      expect(bypass.status).toBe(400);
      expect(((await bypass.json()) as { errors: unknown[] }).errors).toEqual([{ pointer: '/a/b', message: 'Expected an integer' }]);
    } finally {
      await s.close();
    }
  });
});

// ------------------------------------------------------------------------------------------------
// Through the control plane and the runtime.

describe('hostile schemas through the API', () => {
  let s: Stack;
  let endpointAdmin: { id: string; key: string };
  let componentAdmin: { id: string; key: string };
  let invoker: { id: string; key: string };
  let n = 0;
  const path = () => `/guard-injection/${++n}`;
  const NAMES = HOSTILE.filter((name) => name !== '__proto__'); // kept below, parsed from raw JSON

  beforeAll(async () => {
    s = await startStack();
    endpointAdmin = await s.principal(['ENDPOINT_ADMIN']);
    componentAdmin = await s.principal(['COMPONENT_ADMIN']);
    invoker = await s.principal(['ENDPOINT_INVOKE']);
  });
  afterAll(() => s.close());

  const hostileSchema = () => ({
    type: 'object',
    properties: Object.fromEntries(NAMES.map((name) => [name, { const: name, description: name, default: name }])),
    required: NAMES,
    additionalProperties: false,
    title: RUN,
    $comment: RUN,
  });
  const validBody = () => Object.fromEntries(NAMES.map((name) => [name, name]));

  test('an inline Endpoint guard: stored, validated, activated; the runtime checks the names literally', async () => {
    const created = await s.api('POST', '/api/v1/endpoints', { name: 'g', method: 'POST', path: path(), guard: { type: 'inline', schema: hostileSchema() }, validationFailure: { status: 422, body: { refused: RUN } }, staticResponse: { status: 200, body: { ok: RUN } } }, endpointAdmin.key);
    expect(created.status).toBe(201);
    const validated = await s.api('POST', `/api/v1/endpoints/${created.body.id}/validate`, undefined, endpointAdmin.key);
    expect(validated.status).toBe(200);
    expect(validated.body.valid).toBe(true);
    expect((await s.api('POST', `/api/v1/endpoints/${created.body.id}/activate`, undefined, endpointAdmin.key)).status).toBe(200);

    const ok = await s.invoke('POST', created.body.path, { key: invoker.key, body: validBody() });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: RUN });
    const refused = await s.invoke('POST', created.body.path, { key: invoker.key, body: { ...validBody(), [NAMES[5]!]: 'other' } });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({ refused: RUN });
    const extra = await s.invoke('POST', created.body.path, { key: invoker.key, raw: JSON.stringify(validBody()).slice(0, -1) + ',"__proto__":{"polluted":1}}', headers: { 'content-type': 'application/json' } });
    expect(extra.status).toBe(422);
    nothingRan();
  });

  test('a json-validator component used as a guard, with __proto__ and constructor as real keys', async () => {
    const raw = JSON.stringify({ name: 'v', kind: 'json-validator', schema: hostileSchema() }).replace('"properties":{', '"properties":{"__proto__":{"type":"integer"},').replace('"required":[', '"required":["__proto__",');
    const made = await fetch(`${s.baseUrl}/api/v1/components`, { method: 'POST', headers: { authorization: `Bearer ${componentAdmin.key}`, 'content-type': 'application/json' }, body: raw });
    expect(made.status).toBe(201);
    const component = (await made.json()) as { id: string };
    const endpoint = await s.endpoint({ method: 'POST', path: path(), guard: { type: 'component', componentId: component.id }, staticResponse: { status: 200, body: { ok: true } } });
    const body = JSON.stringify(validBody());
    const good = await s.invoke('POST', endpoint.path, { key: invoker.key, raw: body.slice(0, -1) + ',"__proto__":7}', headers: { 'content-type': 'application/json' } });
    expect(good.status).toBe(200);
    const missing = await s.invoke('POST', endpoint.path, { key: invoker.key, body: validBody() });
    expect(missing.status).toBe(400);
    const problem = (await missing.json()) as { code: string; errors: { pointer: string }[] };
    expect(problem.errors).toContainEqual(expect.objectContaining({ pointer: '/__proto__' }));
    nothingRan();
  });

  test('a guard const of 1e400 (JSON beyond a double) is refused at the body, not compiled as Infinity', async () => {
    const r = await fetch(`${s.baseUrl}/api/v1/endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${endpointAdmin.key}`, 'content-type': 'application/json' },
      body: `{"name":"n","method":"POST","path":"${path()}","guard":{"type":"inline","schema":{"const":1e400}},"staticResponse":{"status":200,"body":{}}}`,
    });
    expect(r.status).toBe(422);
    nothingRan();
  });

  test('hostile patterns and formats in an inline guard: refused with a pointer or compiled as literals', async () => {
    const refused = await s.api('POST', '/api/v1/endpoints', { name: 'p', method: 'POST', path: path(), guard: { type: 'inline', schema: { type: 'object', properties: { a: { type: 'string', format: RUN } } } }, staticResponse: { status: 200, body: {} } }, endpointAdmin.key);
    // A bad guard is stored and reported by validate (activation refuses it).
    if (refused.status === 201) {
      const v = await s.api('POST', `/api/v1/endpoints/${refused.body.id}/validate`, undefined, endpointAdmin.key);
      expect(v.body.valid).toBe(false);
      expect((await s.api('POST', `/api/v1/endpoints/${refused.body.id}/activate`, undefined, endpointAdmin.key)).status).toBe(422);
    } else {
      expect(refused.status).toBe(422);
    }
    const pattern = '[/u;globalThis.__guardInjectionPwned=1;/]';
    const endpoint = await s.endpoint({ method: 'POST', path: path(), guard: { type: 'inline', schema: { type: 'object', properties: { a: { type: 'string', pattern: `^${pattern}$`, maxLength: 1 } } } }, staticResponse: { status: 200, body: {} } });
    expect((await s.invoke('POST', endpoint.path, { key: invoker.key, body: { a: '/' } })).status).toBe(200);
    expect((await s.invoke('POST', endpoint.path, { key: invoker.key, body: { a: 'x' } })).status).toBe(400);
    nothingRan();
  });

  test('a node component\'s declared result schema with hostile names: compiled in the server, checked literally', async () => {
    const name = "'];" + RUN + ';//';
    const source = `export default async () => (${JSON.stringify({ [name]: name })});`;
    const made = await s.api('POST', '/api/v1/components', { name: 'r', kind: 'node', source, results: [{ name: 'default', visible: true, schema: { type: 'object', properties: { [name]: { const: name } }, required: [name], additionalProperties: false } }] }, componentAdmin.key);
    expect(made.status).toBe(201);
    const deploymentId = await deployed(s, made.body.id, made.body.latestRevision.id);
    await activateDeployment(s, made.body.id, deploymentId);
    const endpoint = await s.endpoint({ method: 'GET', path: path(), componentId: made.body.id, popResult: 'default' });
    const r = await s.invoke('GET', endpoint.path, { key: invoker.key });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ [name]: name });

    // The same schema refusing what the module returns: 500 COMPONENT_ERROR at /results/default.
    const current = await s.api('GET', `/api/v1/components/${made.body.id}`, undefined, componentAdmin.key);
    const strict = await s.api('PATCH', `/api/v1/components/${made.body.id}`, { version: current.body.version, results: [{ name: 'default', visible: true, schema: { type: 'object', properties: { [name]: { const: 'other' } } } }] }, componentAdmin.key);
    expect(strict.status).toBe(200);
    const second = await deployed(s, made.body.id, strict.body.latestRevision.id);
    await activateDeployment(s, made.body.id, second);
    const refused = await s.invoke('GET', endpoint.path, { key: invoker.key });
    expect(refused.status).toBe(500);
    expect(await refused.json()).toMatchObject({ code: 'COMPONENT_ERROR' });
    nothingRan();
  });
});
