// Source checks on save, as pure functions: positions of syntax errors inside element bodies and
// node modules, code that tries to leave its function body, imports, and schemas.
import { describe, expect, test } from 'bun:test';
import { functionBodyErrors } from '../../src/components/function-body.ts';
import { moduleErrors } from '../../src/components/node-module.ts';
import { checkContent } from '../../src/components/source-check.ts';
import { schemaErrors } from '../../src/components/guard-check.ts';

describe('lowcode element bodies', () => {
  test('valid bodies pass: await, input, results, api, nested functions and braces in strings', () => {
    for (const code of [
      '',
      'return 1',
      'const r = await api.platform("GET", "/api/v1/me");\nreturn { r, x: input.body, prev: results.a };',
      'const f = () => { return "}"; };\nreturn f() + `${"{"}` + /}/.source;',
      'if (input.query.a) { return 1 } else { return 2 }',
    ]) expect(functionBodyErrors(code)).toEqual([]);
  });

  test('a syntax error is reported at its line and column within the code', () => {
    const [error, ...rest] = functionBodyErrors('const ok = 1;\nconst x = ;\nreturn x');
    expect(rest).toEqual([]);
    expect(error).toMatchObject({ line: 2, column: 11 });
    expect(error!.message).toContain(';');
  });

  test('an unfinished expression is reported at the end of the code', () => {
    const [error] = functionBodyErrors('const a = 1;\nreturn (a');
    expect(error).toMatchObject({ line: 2, column: 10 });
    expect(error!.message).toContain('at the end of the code');
  });

  test('code that closes the function body early is refused', () => {
    for (const code of ['}; globalThis.x = 1; {', '}\nglobalThis.x = 1;\n{', '}, globalThis.x = 1, {', '}); globalThis.x = 1; ({', 'return 1 }\nfunction f() {']) {
      expect(functionBodyErrors(code).length).toBeGreaterThan(0);
    }
  });

  test('early errors are caught, still with a position', () => {
    // A directive only counts first in a body: later, it is a plain expression and `with` is fine.
    expect(functionBodyErrors('let a = 1;\n"use strict"; with (a) {}')).toEqual([]);
    const [strict] = functionBodyErrors('"use strict";\nwith (api) {}');
    expect(strict).toMatchObject({ line: 2 });
    expect(strict!.column).toBeGreaterThanOrEqual(1);
    expect(functionBodyErrors('let a = 1;\nlet a = 2;')[0]).toMatchObject({ line: 2 });
  });

  test('code closing its body early is named as such, at the brace that closes it', () => {
    expect(functionBodyErrors('return 1;\n}); globalThis.x = 1; (() => {')).toEqual([{ line: 2, column: 1, message: 'The code closes its function body early' }]);
    expect(functionBodyErrors('}, globalThis.x = 1, () => {')[0]).toMatchObject({ line: 1, column: 1, message: 'The code closes its function body early' });
  });

  test('a body nested too deeply to parse is refused, not a crash', () => {
    const deep = 'return ' + '('.repeat(20_000) + '1' + ')'.repeat(20_000);
    expect(functionBodyErrors(deep).length).toBe(1);
  });

  test('imports and TypeScript syntax are not function-body JavaScript', () => {
    expect(functionBodyErrors('import fs from "node:fs"')[0]).toMatchObject({ line: 1 });
    expect(functionBodyErrors('let x: number = 1')[0]).toMatchObject({ line: 1, column: 6 });
  });
});

describe('node modules', () => {
  test('TypeScript parses; node: builtins and type-only imports are allowed', () => {
    expect(moduleErrors("import type { Foo } from 'foo';\nimport { type Bar } from 'bar';\nimport { createHash } from 'node:crypto';\ninterface A { a: number }\nenum E { X }\nexport default async (api: Foo): Promise<string> => createHash('sha256').update('x').digest('hex');\n")).toEqual([]);
  });

  test('imports other than node: builtins are refused, naming the import at its position', () => {
    const errors = moduleErrors('import { a } from "node:crypto";\nimport x from "lodash";\nconst fs = require(\'fs\');\nexport default async () => x(a, fs, await import("bun:ffi"), await import(`node:nope`));\nexport * from "bun:sqlite";\nimport y = require("left-pad");\n');
    const messages = errors.map((e) => `${e.line}:${e.column} ${e.message}`);
    expect(messages).toHaveLength(6);
    expect(messages[0]).toStartWith('2:15 import of "lodash"');
    expect(messages[1]).toStartWith('3:20 import of "fs"');
    expect(messages[2]).toStartWith('4:50 import of "bun:ffi"');
    expect(messages.some((m) => m.includes('"node:nope"'))).toBe(true);
    expect(messages.some((m) => m.startsWith('5:15 import of "bun:sqlite"'))).toBe(true);
    expect(messages.some((m) => m.startsWith('6:20 import of "left-pad"'))).toBe(true);
  });

  test('builtins that reach past the sandbox (network, processes, threads, terminals, the loader) are withheld, in every import form', () => {
    for (const name of ['net', 'child_process', 'worker_threads', 'tls', 'http', 'dgram', 'tty', 'module', 'wasi', 'inspector', 'cluster', 'dns/promises']) {
      for (const source of [
        `import x from 'node:${name}';\nexport default async () => x;`,
        `export default async () => (await import('node:${name}')).default;`,
        `const m = require('node:${name}');\nexport default async () => m;`,
        `export * from 'node:${name}';\nexport default async () => 1;`,
      ]) {
        const errors = moduleErrors(source);
        expect({ name, source, errors: errors.map((e) => e.message) }).toEqual({ name, source, errors: [expect.stringContaining(`"node:${name}" is not allowed: components get no network`)] });
      }
    }
    expect(moduleErrors("import { createHash } from 'node:crypto';\nimport { Buffer } from 'node:buffer';\nimport { inspect } from 'node:util';\nexport default async () => 1;")).toEqual([]);
  });

  test('import attributes are refused, macro or not, in every spelling', () => {
    for (const source of [
      "import { a } from 'node:fs' with { type: 'macro' };\nexport default async () => 1;",
      "import {a} from \"node:fs\"with{type:\"macro\"}\nexport default async () => 1",
      "import { a } from 'node:fs' assert { type: 'macro' };\nexport default async () => 1;",
      "import data from 'node:fs' with { type: 'json' };\nexport default async () => 1;",
      "export { a } from 'node:fs' with { type: 'macro' };\nexport default async () => 1;",
      "export default async () => import('node:fs', { with: { type: 'macro' } });",
    ]) {
      const errors = moduleErrors(source);
      expect(errors.map((e) => e.message)).toContainEqual(expect.stringContaining('import attributes'));
    }
  });

  test('syntax errors carry line and column', () => {
    expect(moduleErrors('export default async (api) => {\n  const x = ;\n};\n')[0]).toMatchObject({ line: 2, column: 13 });
  });
});

describe('checkContent pointers', () => {
  test('lowcode: /elements/<i>/code with "line L, column C" in the message', () => {
    const result = checkContent({ kind: 'lowcode', elements: [
      { name: 'a', code: 'return 1', visible: true },
      { name: 'b', code: 'return 2', visible: true },
      { name: 'c', code: 'const y = 1;\nreturn y +;', visible: true },
    ] });
    expect(result).toEqual({ ok: false, errors: [{ pointer: '/elements/2/code', message: expect.stringMatching(/^line 2, column \d+: /) }] });
  });

  test('node: /source, and declared result schemas under /results/<i>/schema', () => {
    expect(checkContent({ kind: 'node', source: 'export default async () => {' })).toMatchObject({ ok: false, errors: [{ pointer: '/source', message: expect.stringMatching(/^line 1, column \d+: /) }] });
    expect(checkContent({ kind: 'node', source: 'export default async () => 1', results: [{ name: 'default', visible: true, schema: { type: 'strin' } }] }))
      .toEqual({ ok: false, errors: [{ pointer: '/results/0/schema/type', message: expect.any(String) }] });
    expect(checkContent({ kind: 'node', source: 'export default async () => 1' })).toEqual({ ok: true });
  });

  test('json-validator: /schema/<path to the bad keyword>', () => {
    expect(checkContent({ kind: 'json-validator', schema: { type: 'object', properties: { a: { type: 'string', pattern: '(' } } } }))
      .toEqual({ ok: false, errors: [{ pointer: '/schema/properties/a/pattern', message: expect.stringContaining('regular expression') }] });
    expect(checkContent({ kind: 'json-validator', schema: { type: 'object', required: 'a' } })).toMatchObject({ ok: false, errors: [{ pointer: '/schema/required' }] });
    expect(checkContent({ kind: 'json-validator', schema: { type: 'object', properties: { a: { type: 'string', maxLength: 5 } }, additionalProperties: false } })).toEqual({ ok: true });
  });

  test('schema checks walk nested keywords', () => {
    expect(schemaErrors({ allOf: [{ items: { minLength: -1 } }], anyOf: [] }).map((e) => e.pointer)).toEqual(['/allOf/0/items/minLength', '/anyOf']);
  });
});
