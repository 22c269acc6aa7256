// Hostile component code against the save-time checks (README "Security"): nothing submitted may
// execute, be imported or be transpiled with macros in a server process. The test process is the
// server (test/helpers/stack.ts); every payload tries to set a globalThis flag and to write a marker
// file in os.tmpdir(), so that a payload run anywhere in the server shows.
//
// - lowcode bodies that try to leave `async (api, input, results) => { … }` through comments that
//   end at a line terminator JavaScript knows and a reader may not (U+2028, U+2029, a lone \r),
//   HTML-like comments (`<!--`, `-->`, valid in sloppy scripts), a hashbang, `</script>`, and
//   regex/template/string confusion: refused when they close the body, and when accepted, read in
//   the sandbox exactly as @babel/parser read them on save (the same value comes back);
// - node modules with the import forms Babel might not report (`import defer`, `import source`,
//   re-exports with attributes, `import x = require()`, `declare module`, escaped keywords,
//   type-only imports carrying a macro attribute, `require` through an alias, `import.meta`);
// - inputs that are large or deeply nested, for the parser, the iterative walk and vm.Script;
// - the parser's own running time: a real bug, see "the save-time parse blocks the server" below.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { functionBodyErrors } from '../../src/components/function-body.ts';
import { moduleErrors } from '../../src/components/node-module.ts';
import { activateDeployment } from '../helpers/deployments.ts';
import { ADMIN_KEY } from '../helpers/platform.ts';
import { startStack, type Stack } from '../helpers/stack.ts';
import { tempDir } from '../helpers/temp.ts';

const FLAG = '__hostileSourcePwned';
const MARKER = join(tmpdir(), `hostile-source-marker-${process.pid}`);
afterAll(() => rmSync(MARKER, { force: true }));

/** A statement that sets the flag and writes the marker (no `await`: valid at any level). */
const RUN = `globalThis.${FLAG} = 1; import('node:fs').then((fs) => fs.writeFileSync(${JSON.stringify(MARKER)}, 'x'))`;

const nothingRan = (): void => {
  expect((globalThis as Record<string, unknown>)[FLAG]).toBeUndefined();
  expect(existsSync(MARKER)).toBe(false);
};

// ------------------------------------------------------------------------------------------------
// Lowcode element bodies.

/** Bodies that close the wrapper early (or try to): refused with 422 at /elements/0/code. */
const ESCAPING: Record<string, string> = {
  'line comment ended by U+2028': `// c\u2028}); ${RUN}; (() => {`,
  'line comment ended by U+2029': `// c\u2029}); ${RUN}; (() => {`,
  'line comment ended by a lone \\r': `// c\r}); ${RUN}; (() => {`,
  'line comment ended by \\r\\n': `// c\r\n}); ${RUN}; (() => {`,
  'block comment, then the body closes': `/* */ }); ${RUN}; (() => { /* */`,
  'block comment holding U+2028, then the body closes': `/*\u2028*/ }); ${RUN}; (() => {`,
  'an unterminated block comment swallowing the wrapper': `/* }); ${RUN}; (() => {`,
  'a hashbang after closing the body': `});\n#!/usr/bin/env bun\n${RUN};\n(() => {`,
  'a hashbang first (only valid at the start of a file)': `#!/usr/bin/env bun\nreturn 1`,
  'a regex holding the closing text': `return /}); ${RUN}; (() => {/.source`,
  'division read as a regex (or the reverse)': `let a = 4, g = 2;\nreturn a /}); ${RUN}; (() => {/g`,
  'a template that is closed early': `return \`\${1}\`}); ${RUN}; (() => {\``,
  'return, then the closing brace, then a line comment eating the tail': `return 1\n}); ${RUN}; //`,
  'a second function after the wrapper (comma)': `}, () => { ${RUN} }, () => {`,
  'the wrapper called at once': `})(); ${RUN}; (async () => {`,
  'the wrapper as an operand': `}) + (${RUN}, () => {`,
  'label and block games': `}\n}); ${RUN}; { (() => {`,
  'a class body closing the wrapper': `class A { m() { } } }); ${RUN}; (() => {`,
  'a string continued over the line, closing after it': `return "a\\\n"}); ${RUN}; (() => {`,
  'HTML close comment not at the start of a line, then a close': `let x = 1; x --> 0; }); ${RUN}; (() => {`,
  'an import declaration (not in a function body)': `import { writeFileSync } from 'node:fs' with { type: 'macro' };\nwriteFileSync(${JSON.stringify(MARKER)}, 'x');`,
  'a macro import after closing the body': `});\nimport { writeFileSync } from 'node:fs' with { type: 'macro' };\nwriteFileSync(${JSON.stringify(MARKER)}, 'x');\n(() => {`,
};

/**
 * Bodies that are valid as they stand, some holding the closing text inside a comment, a string or a
 * template: accepted, and the sandbox must read them as the save-time parser did (the value).
 */
const ACCEPTED: { name: string; code: string; value: unknown }[] = [
  { name: 'HTML open comment holding the closing text', code: `<!-- }); ${RUN}; (() => {\nreturn 1`, value: 1 },
  { name: 'HTML close comment at the start of a line', code: `let x = 1;\n--> }); ${RUN}; (() => {\nreturn x`, value: 1 },
  { name: 'HTML close comment after whitespace', code: `let x = 1;\n   --> x = 2\nreturn x`, value: 1 },
  { name: 'HTML close comment after a block comment with a line break', code: `let x = 1;\n/*\n*/ --> x = 2\nreturn x`, value: 1 },
  { name: 'HTML close comment after a one-line block comment at a line start', code: `let x = 1;\n/* */ --> x = 2\nreturn x`, value: 1 },
  { name: 'HTML close comment after U+2028', code: `let x = 1;\u2028--> x = 2\nreturn x`, value: 1 },
  { name: 'HTML close comment after a lone \\r', code: `let x = 1;\r--> x = 2\nreturn x`, value: 1 },
  { name: 'HTML close comment on the first line of the body', code: `--> }); ${RUN}; (() => {\nreturn 1`, value: 1 },
  { name: '`-->` in the middle of a line is a decrement and a comparison', code: `let x = 3;\nx --> 1; return x`, value: 2 },
  { name: '`a<!--b` is `a` and a comment', code: `let a = 1, b = 2;\nreturn a<!--b\n+ 3`, value: 4 },
  { name: '</script> in a string', code: `return '</script><script>${FLAG}</script>'`, value: `</script><script>${FLAG}</script>` },
  { name: 'a template holding the closing text', code: 'return `${"}"}); globalThis.x = 1; (() => {`', value: '}); globalThis.x = 1; (() => {' },
  { name: 'nested templates with braces', code: 'return `${`${"})"}`}`', value: '})' },
  { name: 'a string continued over a line', code: `return "a\\\n}); (() => {"`, value: 'a}); (() => {' },
  { name: 'U+2028 and U+2029 inside a string', code: 'return "a\u2028b\u2029c"', value: 'a\u2028b\u2029c' },
  { name: 'a lone \\r inside a template is a line break', code: 'return `a\rb`.length', value: 3 },
  { name: 'U+0085 (NEL) does not end a line comment', code: `// c\u0085}); ${RUN}; (() => {\nreturn 5`, value: 5 },
  { name: 'a byte-order mark before the code', code: '\ufeffreturn 1', value: 1 },
  { name: 'a regex holding braces and slashes', code: 'return /[}\\/]+\\}/.test("}/}")', value: true },
  { name: 'division and a regex on one line', code: 'let a = 6, b = 3, g = 1;\nreturn a / b / g + /\\//.source.length', value: 4 },
  { name: 'unicode escapes in identifiers and strings', code: 'let \\u0061 = "\\u007d"; return a', value: '}' },
];

describe('lowcode bodies that try to leave their wrapper (save-time check, pure)', () => {
  for (const [name, code] of Object.entries(ESCAPING)) {
    test(`refused: ${name}`, () => {
      expect(functionBodyErrors(code).length).toBeGreaterThan(0);
      nothingRan();
    });
  }
  for (const { name, code } of ACCEPTED) {
    test(`accepted: ${name}`, () => {
      expect(functionBodyErrors(code)).toEqual([]);
      nothingRan();
    });
  }

  test('source-map and source-URL comments are never followed when an error is reported', () => {
    for (const comment of ['//# sourceMappingURL=/etc/passwd', '//# sourceMappingURL=file:///etc/passwd', '//@ sourceMappingURL=/etc/passwd', '//# sourceURL=/etc/passwd']) {
      // `delete x` in strict code: Babel lets it through, the engine's compile (vm.Script) refuses it.
      for (const code of [`"use strict";\n${comment}\ndelete x;`, `${comment}\nlet a = ;`]) {
        const errors = functionBodyErrors(code);
        expect(errors.length).toBe(1);
        expect(errors[0]!.message).not.toContain('root:');
      }
      expect(moduleErrors(`${comment}\nexport default async () => ;`)[0]!.message).not.toContain('root:');
    }
  });

  test('naming the escape: code that closes the body is reported as such, at the brace', () => {
    expect(functionBodyErrors(ESCAPING['line comment ended by U+2028']!)[0]!.message).toContain('closes its function body early');
    expect(functionBodyErrors(ESCAPING['line comment ended by a lone \\r']!)[0]!.message).toContain('closes its function body early');
    expect(functionBodyErrors(ESCAPING['the wrapper called at once']!)[0]).toMatchObject({ line: 1, column: 1, message: 'The code closes its function body early' });
  });
});

describe('lowcode bodies through the API, and what the sandbox makes of the accepted ones', () => {
  let s: Stack;
  let author: { id: string; key: string };
  let invoker: { id: string; key: string };
  beforeAll(async () => {
    // Process isolation: the accepted bodies run in sandboxed executor hosts, as in production.
    s = await startStack({}, { isolation: 'process' });
    author = await s.principal(['COMPONENT_ADMIN']);
    invoker = await s.principal(['ENDPOINT_INVOKE']);
  });
  afterAll(() => s.close());

  test('every escaping body: 422 SOURCE_INVALID at /elements/0/code on create and on PATCH, nothing stored or run', async () => {
    const made = await s.api('POST', '/api/v1/components', { name: 'keep', kind: 'lowcode', elements: [{ name: 'v', code: 'return 1' }] }, author.key);
    expect(made.status).toBe(201);
    for (const code of Object.values(ESCAPING)) {
      const created = await s.api('POST', '/api/v1/components', { name: 'x', kind: 'lowcode', elements: [{ name: 'v', code }] }, author.key);
      expect(created.status).toBe(422);
      expect(created.body).toMatchObject({ code: 'SOURCE_INVALID', errors: [{ pointer: '/elements/0/code' }] });
      const patched = await s.api('PATCH', `/api/v1/components/${made.body.id}`, { version: made.body.version, elements: [{ name: 'v', code }] }, author.key);
      expect(patched.status).toBe(422);
      // With a second violation the body check runs the code check as a best effort too.
      const both = await s.api('POST', '/api/v1/components', { name: '', kind: 'lowcode', elements: [{ name: 'v', code }] }, author.key);
      expect(both.status).toBe(422);
      expect(both.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/elements/0/code');
    }
    const after = await s.api('GET', `/api/v1/components/${made.body.id}`, undefined, author.key);
    expect(after.body.latestRevision.number).toBe(1);
    nothingRan();
  });

  test('every accepted body is saved, and the sandbox returns the value the save-time reading means', async () => {
    for (const [i, { name, code, value }] of ACCEPTED.entries()) {
      const made = await s.api('POST', '/api/v1/components', { name: `ok${i}`, kind: 'lowcode', elements: [{ name: 'v', code }] }, author.key);
      expect({ name, status: made.status }).toEqual({ name, status: 201 });
      const endpoint = await s.endpoint({ method: 'GET', path: `/hostile-lowcode/${i}`, componentId: made.body.id, popResult: 'v' });
      const r = await s.invoke('GET', endpoint.path, { key: invoker.key });
      expect({ name, status: r.status, body: await r.json() }).toEqual({ name, status: 200, body: value });
    }
    nothingRan();
  });
});

// ------------------------------------------------------------------------------------------------
// Node modules.

/** Modules the save-time check must refuse (422 at /source): each would import past node: builtins or carry attributes. */
const REFUSED_MODULES: Record<string, string> = {
  'import defer (stage 3, not enabled in the parser)': `import defer * as ns from 'bun';\nexport default async () => 1;`,
  'import source (source-phase import)': `import source s from 'bun';\nexport default async () => 1;`,
  'export * from with a macro attribute': `export * from 'node:fs' with { type: 'macro' };\nexport default async () => 1;`,
  'export { … } from with a macro attribute': `export { writeFileSync } from 'node:fs' with { type: 'macro' };\nexport default async () => 1;`,
  'export * as ns from bun:ffi': `export * as ns from 'bun:ffi';\nexport default async () => 1;`,
  'import x = require("bun")': `import x = require('bun');\nexport default async () => x;`,
  'export import x = require("bun:ffi")': `export import x = require('bun:ffi');\nexport default async () => 1;`,
  'import x = require inside a namespace': `namespace N { import x = require('bun'); }\nexport default async () => 1;`,
  'a macro import inside declare module': `declare module 'x' { import { spawnSync } from 'bun' with { type: 'macro' }; }\nexport default async () => 1;`,
  'dynamic import() with attributes': `export default async () => import('node:fs', { with: { type: 'macro' } });`,
  'require() of bun:ffi': `const f = require('bun:ffi');\nexport default async () => 1;`,
  'require() of a template literal': 'const f = require(`bun:ffi`);\nexport default async () => 1;',
  '`with` spelled with a unicode escape': `import x from 'node:fs' w\\u0069th { type: 'macro' };\nexport default async () => 1;`,
  'legacy assert { type: "macro" }': `import { execSync } from 'node:child_process' assert { type: 'macro' };\nexecSync('touch ${MARKER}');\nexport default async () => 1;`,
  'a json import attribute': `import x from 'node:fs' with { type: 'json' };\nexport default async () => 1;`,
  'a specifier spelled with a unicode escape ("b\\u0075n")': `import { spawnSync } from 'b\\u0075n' with { type: 'macro' };\nspawnSync(['touch', '${MARKER}']);\nexport default async () => 1;`,
  'node:bun is not a builtin': `import x from 'node:bun';\nexport default async () => 1;`,
  'comments between the parts of the attribute': `import { writeFileSync } from 'node:fs' /* a */ with /* b */ { /* c */ type /* d */ : 'macro' };\nwriteFileSync('${MARKER}', 'x');\nexport default async () => 1;`,
  'HTML comments are not module syntax': `<!-- \nexport default async () => 1;`,
  'an unterminated template swallowing the rest': 'export default async () => `${1}\n',
};

/**
 * Accepted on save: only the sandbox can see through these (README: "dynamic imports of computed
 * specifiers cannot be seen here, and the sandbox is what stops those"). Type-only imports are
 * erased by the transpiler, attributes included, so a macro attribute on one runs nothing.
 */
const SANDBOX_DECIDES: Record<string, string> = {
  'a type-only named import carrying a macro attribute': `import { type spawnSync } from 'bun' with { type: 'macro' };\nexport default async () => typeof spawnSync;`,
  'import type carrying a macro attribute': `import type { writeFileSync } from 'node:fs' with { type: 'macro' };\nexport default async () => 1;`,
  'import type x = require()': `import type x = require('bun');\nexport default async () => 1;`,
  'export type * from': `export type * from 'bun';\nexport default async () => 1;`,
  'require through an alias': `const r = require;\nexport default async () => typeof r;`,
  'import.meta.require': `export default async () => typeof import.meta.require;`,
  'import() of a computed specifier': `const n = 'node:' + 'path';\nexport default async () => typeof (await import(n)).join;`,
  'a hashbang': `#!/usr/bin/env bun\nexport default async () => 1;`,
};

describe('node modules with import forms the parser must see', () => {
  for (const [name, source] of Object.entries(REFUSED_MODULES)) {
    test(`refused on save: ${name}`, () => {
      expect(moduleErrors(source).length).toBeGreaterThan(0);
      nothingRan();
    });
  }
  for (const [name, source] of Object.entries(SANDBOX_DECIDES)) {
    test(`accepted on save, left to the sandbox: ${name}`, () => {
      expect(moduleErrors(source)).toEqual([]);
      nothingRan();
    });
  }

  describe('through the API and a deployment in the sandbox', () => {
    let s: Stack;
    let author: { id: string; key: string };
    beforeAll(async () => {
      s = await startStack({}, { isolation: 'process' });
      author = await s.principal(['COMPONENT_ADMIN']);
    });
    afterAll(() => s.close());

    test('refused modules: 422 SOURCE_INVALID at /source on create, PATCH and the best-effort check', async () => {
      const made = await s.api('POST', '/api/v1/components', { name: 'keep', kind: 'node', source: 'export default async () => 1;' }, author.key);
      expect(made.status).toBe(201);
      for (const source of Object.values(REFUSED_MODULES)) {
        const created = await s.api('POST', '/api/v1/components', { name: 'n', kind: 'node', source }, author.key);
        expect(created.status).toBe(422);
        expect(created.body).toMatchObject({ code: 'SOURCE_INVALID' });
        expect(created.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/source');
        const patched = await s.api('PATCH', `/api/v1/components/${made.body.id}`, { version: made.body.version, source }, author.key);
        expect(patched.status).toBe(422);
        const both = await s.api('POST', '/api/v1/components', { name: '', kind: 'node', source }, author.key);
        expect(both.status).toBe(422);
      }
      nothingRan();
    });

    test('modules the sandbox decides: deployed (ready or failed) inside a host, never in the server', async () => {
      for (const [name, source] of Object.entries(SANDBOX_DECIDES)) {
        const made = await s.api('POST', '/api/v1/components', { name: 'sb', kind: 'node', source }, author.key);
        expect({ name, status: made.status }).toEqual({ name, status: 201 });
        const dep = await s.api('POST', `/api/v1/components/${made.body.id}/deployments`, { revisionId: made.body.latestRevision.id });
        expect(dep.status).toBe(202);
        let status = dep.body.status as string;
        for (let i = 0; i < 200 && status === 'building'; i++) {
          await Bun.sleep(50);
          status = (await s.api('GET', `/api/v1/components/${made.body.id}/deployments/${dep.body.id}`)).body.status;
        }
        expect({ name, status: ['ready', 'failed'].includes(status) }).toEqual({ name, status: true });
        if (status === 'ready') await activateDeployment(s, made.body.id, dep.body.id);
      }
      nothingRan();
    });
  });
});

// ------------------------------------------------------------------------------------------------
// Size and depth.

describe('very large and deeply nested code is refused or accepted, never a crash', () => {
  test('nesting beyond the parser\'s stack: a positioned error, for every kind of nesting', () => {
    const n = 50_000;
    for (const code of [
      'return ' + '('.repeat(n) + '1' + ')'.repeat(n),
      'return ' + '['.repeat(n) + ']'.repeat(n),
      'return ' + '{a:'.repeat(n) + '1' + '}'.repeat(n),
      '{'.repeat(n) + '}'.repeat(n),
      'return ' + '`${'.repeat(n) + '1' + '}`'.repeat(n),
      'return ' + '() => '.repeat(n) + '1',
      'return ' + '!'.repeat(n) + '1',
      'return ' + 'a?'.repeat(n) + 'b' + ':c'.repeat(n),
      'return 1' + '+1'.repeat(n),
    ]) {
      const errors = functionBodyErrors(code);
      expect(errors.length).toBeLessThanOrEqual(1);
      for (const e of errors) expect(e.line).toBeGreaterThanOrEqual(1);
      const module = moduleErrors(`export default ${code.replace(/^return /, '').replace(/^\{/, '({') }`);
      expect(Array.isArray(module)).toBe(true);
    }
    nothingRan();
  });

  test('a wide module (many imports, many calls) is walked iteratively', () => {
    const source = Array.from({ length: 5000 }, (_, i) => `import { join as j${i} } from "node:path";\n`).join('') + 'require("node:fs");'.repeat(20_000) + '\nexport default async () => 1;';
    expect(moduleErrors(source)).toEqual([]);
    const refused = moduleErrors('import("x");'.repeat(20_000));
    expect(refused.length).toBe(20_000);
  });

  test('through the API: a 4 MiB body of deep nesting is 422 or 413, and the server keeps answering', async () => {
    const s = await startStack();
    try {
      const author = await s.principal(['COMPONENT_ADMIN']);
      const deep = 'return ' + '['.repeat(200_000) + ']'.repeat(200_000);
      const r = await s.api('POST', '/api/v1/components', { name: 'deep', kind: 'lowcode', elements: [{ name: 'v', code: deep }] }, author.key);
      expect([413, 422]).toContain(r.status);
      const node = await s.api('POST', '/api/v1/components', { name: 'deep', kind: 'node', source: 'export default ' + '('.repeat(250_000) + '1' + ')'.repeat(250_000) }, author.key);
      expect(node.status).toBe(422);
      expect((await fetch(`${s.baseUrl}/healthz`)).status).toBe(200);
    } finally {
      await s.close();
    }
    nothingRan();
  });
});

// ------------------------------------------------------------------------------------------------
// The parser's running time: a real bug.

/** The whole server (`src/main.ts`, as `npm start` runs it) in a child process, so that a hang cannot take the test run with it. */
async function startServer(): Promise<{ api: string; runtime: string; stop: () => void }> {
  const data = mkdtempSync(join(tempDir('hostile-sources'), 'data-'));
  const child = Bun.spawn([process.execPath, '--max-http-header-size=131072', 'src/main.ts'], {
    cwd: join(import.meta.dir, '..', '..'),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PORT: '0', RUNTIME_PORT: '0', DATA_DIR: data, DATABASE_URL: `sqlite:${join(data, 'p.db')}`, PLATFORM_ADMIN_API_KEY: ADMIN_KEY, COMPONENT_ISOLATION: 'worker', LOG_LEVEL: 'info' },
    stdout: 'ignore',
    stderr: 'pipe',
  });
  const stop = () => child.kill('SIGKILL');
  process.once('exit', stop);
  let text = '';
  const origins = new Map<string, string>();
  const reader = (child.stderr as ReadableStream<Uint8Array>).getReader();
  const deadline = Date.now() + 30_000;
  while (origins.size < 2 && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
    for (const m of text.matchAll(/(control plane|endpoint runtime) listening on ([^\s"]+)"/g)) origins.set(m[1]!, m[2]!);
  }
  // Keep draining the log so the child never blocks on a full pipe.
  void (async () => {
    for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) break;
  })();
  if (origins.size < 2) {
    stop();
    throw new Error(`the server did not start:\n${text}`);
  }
  const local = (origin: string) => `http://127.0.0.1:${new URL(origin).port}`;
  return { api: `${local(origins.get('control plane')!)}/api/v1`, runtime: local(origins.get('endpoint runtime')!), stop };
}

/** Milliseconds until /healthz answers, or Infinity past `limitMs`. */
async function healthLatency(origin: string, limitMs: number): Promise<number> {
  const started = performance.now();
  try {
    const r = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(limitMs) });
    return r.status === 200 ? performance.now() - started : Infinity;
  } catch {
    return Infinity;
  }
}

/** `<T>(` nested n deep: @babel/parser's TypeScript plugin tries a generic arrow, fails at the end, then a type assertion, at every level: 2^n. */
const exponential = (n: number): string => '<T>('.repeat(n) + 'x' + ')'.repeat(n);

describe('the save-time parse never blocks the server (event loop)', () => {
  test('unauthenticated and unauthorised requests carrying it are refused before any parse', async () => {
    const server = await startServer();
    try {
      const body = JSON.stringify({ name: 'x', kind: 'node', source: exponential(60) });
      const anon = await fetch(`${server.api}/components`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(5000) });
      expect(anon.status).toBe(401);
      const user = await fetch(`${server.api}/users`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'u', email: 'u@example.com', roles: ['AGENT_USER'], platformAccess: true }) });
      const key = await fetch(`${server.api}/api-keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ principalId: ((await user.json()) as { id: string }).id, name: 'k' }) });
      const agentUser = ((await key.json()) as { key: string }).key;
      const forbidden = await fetch(`${server.api}/components`, { method: 'POST', headers: { authorization: `Bearer ${agentUser}`, 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(5000) });
      expect(forbidden.status).toBe(403);
      expect(await healthLatency(server.runtime, 2000)).toBeLessThan(2000);
    } finally {
      server.stop();
    }
  });

  // Was a bug (parser DoS): the save-time check ran @babel/parser on the event loop, and its
  // TypeScript plugin backtracks exponentially on nested `<T>(`; one ~250-byte POST froze both
  // origins of npm start for good. The checks now run on a thread of their own within a limit
  // (src/components/source-checker.ts): the runtime answers meanwhile, the save is refused at it.
  test('a COMPONENT_ADMIN\'s 250-byte node source does not stop the server, and is refused at the limit', async () => {
    const server = await startServer();
    try {
      const author = await createComponentAdmin(server.api);
      const saved = fetch(`${server.api}/components`, { method: 'POST', headers: { authorization: `Bearer ${author}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'x', kind: 'node', source: `export default async () => 1;\n${exponential(60)}` }) });
      await Bun.sleep(300);
      expect(await healthLatency(server.runtime, 3000)).toBeLessThan(3000);
      const refused = await saved;
      expect(refused.status).toBe(422);
      expect(await refused.json()).toMatchObject({ code: 'SOURCE_INVALID', errors: [{ pointer: '/source', message: expect.stringContaining('took longer than') }] });
    } finally {
      server.stop();
    }
  }, 30_000);

  // Was a bug (same root cause): a 1 MiB node source held both origins ~3 s while it parsed.
  test('a 1 MiB node source does not hold the runtime for a second', async () => {
    const server = await startServer();
    try {
      const author = await createComponentAdmin(server.api);
      const saved = fetch(`${server.api}/components`, { method: 'POST', headers: { authorization: `Bearer ${author}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'big', kind: 'node', source: 'export default async () => 1;\n' + 'f<T>(x);'.repeat(131_000) }) });
      let worst = 0;
      let done = false;
      void saved.finally(() => (done = true));
      while (!done) {
        worst = Math.max(worst, await healthLatency(server.runtime, 20_000));
        await Bun.sleep(20);
      }
      expect((await saved).status).toBe(201);
      expect(worst).toBeLessThan(1000);
    } finally {
      server.stop();
    }
  }, 60_000);
});

async function createComponentAdmin(api: string): Promise<string> {
  const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
  const n = crypto.randomUUID().slice(0, 8);
  const user = await fetch(`${api}/users`, { method: 'POST', headers, body: JSON.stringify({ name: `c${n}`, email: `c${n}@example.com`, roles: ['COMPONENT_ADMIN'], platformAccess: true }) });
  const key = await fetch(`${api}/api-keys`, { method: 'POST', headers, body: JSON.stringify({ principalId: ((await user.json()) as { id: string }).id, name: 'k' }) });
  return ((await key.json()) as { key: string }).key;
}
