// Issue #20: submitted source never runs in a server process. Bun's transpiler runs imports marked
// `with { type: 'macro' }` while it transpiles, so no save-time check may transpile submitted text
// in the server; a node deployment transpiles and loads its module inside the executor's sandbox.
// Each attempt below tries to leave a marker file in the server's real temporary directory (the
// test process is the server) or to read the server's environment into a response.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { startStack, type Stack } from '../helpers/stack.ts';
import { deployed, activateDeployment } from '../helpers/deployments.ts';

const markers: string[] = [];
const marker = (): string => {
  const path = join(tmpdir(), `macro-marker-${crypto.randomUUID()}`);
  markers.push(path);
  return path;
};
afterAll(() => {
  for (const path of markers) rmSync(path, { force: true });
});

/** Node module sources that would write `path` at transpile time, one per way of spelling the macro import. */
const nodeMacros = (path: string): string[] => [
  `import { writeFileSync } from 'node:fs' with { type: 'macro' };\nwriteFileSync('${path}', 'x');\nexport default async () => 1;`,
  `import { writeFileSync } from "node:fs" with {type:"macro"};\nwriteFileSync("${path}", "x");\nexport default async () => 1;`,
  `import {writeFileSync} from 'node:fs'with{type:'macro'}\nwriteFileSync('${path}','x')\nexport default async () => 1`,
  `import { writeFileSync } from 'node:fs' assert { type: 'macro' };\nwriteFileSync('${path}', 'x');\nexport default async () => 1;`,
  `import { writeFileSync as w } from 'fs' with { type: 'macro' };\nw('${path}', 'x');\nexport default async () => 1;`,
  `import { spawnSync } from 'bun' with { type: 'macro' };\nspawnSync(['touch', '${path}']);\nexport default async () => 1;`,
  `import { execSync } from 'node:child_process' with { type: 'macro' };\nexecSync('touch ${path}');\nexport default async (api: unknown): Promise<number> => 1;`,
  `import { touch } from 'some-package' with { type: 'macro' };\ntouch('${path}');\nexport default async () => 1;`,
];

/** Lowcode element bodies that close the function early to reach the top level of a module. */
const lowcodeMacros = (path: string): string[] => [
  `});\nimport { execSync } from 'node:child_process' with { type: 'macro' };\nexecSync('touch ${path}');\n(() => {`,
  `}\nimport { writeFileSync } from 'node:fs' with { type: 'macro' };\nwriteFileSync('${path}', 'x');\nfunction again() {`,
  `}); import{writeFileSync}from"node:fs"with{type:"macro"}; writeFileSync("${path}","x"); (async () => {`,
  `}, 1);\nimport { writeFileSync } from 'node:fs' assert { type: 'macro' };\nwriteFileSync('${path}', 'x');\n((a) => {`,
];

describe('a macro import in submitted code never runs in the server', () => {
  let s: Stack;
  let author: { id: string; key: string };
  beforeAll(async () => {
    s = await startStack();
    author = await s.principal(['COMPONENT_ADMIN']);
  });
  afterAll(() => s.close());

  test('node component create: refused with 422 at /source, nothing written', async () => {
    for (const source of nodeMacros(marker())) {
      const path = markers[markers.length - 1]!;
      const r = await s.api('POST', '/api/v1/components', { name: 'm', kind: 'node', source }, author.key);
      expect(r.status).toBe(422);
      expect(r.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/source');
      expect(existsSync(path)).toBe(false);
    }
  });

  test('node component create with other violations too (the best-effort source check) writes nothing', async () => {
    const path = marker();
    const r = await s.api('POST', '/api/v1/components', { name: '', kind: 'node', source: nodeMacros(path)[0] }, author.key);
    expect(r.status).toBe(422);
    expect(existsSync(path)).toBe(false);
  });

  test('node component PATCH: refused, the component keeps its revision, nothing written', async () => {
    const made = await s.api('POST', '/api/v1/components', { name: 'm', kind: 'node', source: 'export default async () => 1;' }, author.key);
    expect(made.status).toBe(201);
    for (const source of nodeMacros(marker())) {
      const path = markers[markers.length - 1]!;
      const r = await s.api('PATCH', `/api/v1/components/${made.body.id}`, { version: made.body.version, source }, author.key);
      expect(r.status).toBe(422);
      expect(r.body.code).toBe('SOURCE_INVALID');
      expect(existsSync(path)).toBe(false);
    }
    const after = await s.api('GET', `/api/v1/components/${made.body.id}`, undefined, author.key);
    expect(after.body.version).toBe(made.body.version);
    expect(after.body.latestRevision.number).toBe(1);
  });

  test('lowcode create and PATCH: an element that closes its function early to import a macro is refused, nothing written', async () => {
    const made = await s.api('POST', '/api/v1/components', { name: 'l', kind: 'lowcode', elements: [{ name: 'v', code: 'return 1;' }] }, author.key);
    expect(made.status).toBe(201);
    for (const code of lowcodeMacros(marker())) {
      const path = markers[markers.length - 1]!;
      const created = await s.api('POST', '/api/v1/components', { name: 'l', kind: 'lowcode', elements: [{ name: 'v', code }] }, author.key);
      expect(created.status).toBe(422);
      expect(created.body).toMatchObject({ code: 'SOURCE_INVALID', errors: [{ pointer: '/elements/0/code' }] });
      const patched = await s.api('PATCH', `/api/v1/components/${made.body.id}`, { version: made.body.version, elements: [{ name: 'v', code }] }, author.key);
      expect(patched.status).toBe(422);
      // With a second violation the body check runs the source check as a best effort too.
      const both = await s.api('POST', '/api/v1/components', { name: 'l', kind: 'lowcode', elements: [{ name: 'v', code }, { name: 'v', code: 'return 2' }] }, author.key);
      expect(both.status).toBe(422);
      expect(existsSync(path)).toBe(false);
    }
  });
});

describe('a node deployment transpiles and loads its module in the sandbox', () => {
  let s: Stack;
  const canary = `canary-${crypto.randomUUID()}`;
  beforeAll(async () => {
    s = await startStack({}, { isolation: 'process' });
  });
  afterAll(() => s.close());

  test('a macro that reached the database (a row from before the save check) runs in the sandbox, never with the server\'s environment', async () => {
    const made = await s.api('POST', '/api/v1/components', { name: 'env', kind: 'node', source: 'export default async () => 1;' });
    expect(made.status).toBe(201);
    const revisionId = made.body.latestRevision.id as string;
    // What an older server would have stored: the source as submitted, the macro still in it.
    const source = "import { readFileSync } from 'node:fs' with { type: 'macro' };\nconst environ = readFileSync('/proc/self/environ', 'utf8');\nexport default async () => environ;";
    const { db } = s.platform;
    await db.write((q) => q.update(db.t.componentRevisions).set({ content: { source }, compiled: null }).where(eq(db.t.componentRevisions.id, revisionId)));
    process.env.MACRO_TEST_CANARY = canary;
    const deploymentId = await deployed(s, made.body.id, revisionId);
    await activateDeployment(s, made.body.id, deploymentId);
    await s.endpoint({ method: 'GET', path: '/environ', componentId: made.body.id, popResult: 'default' });
    const r = await s.invoke('GET', '/environ');
    const text = await r.text();
    expect(r.status).toBe(200);
    // The host's environment is empty but for the allocator setting; the server's is not.
    expect(process.env.PATH).toBeTruthy();
    expect(text).not.toContain(process.env.PATH!);
    expect(text).not.toContain(canary);
    delete process.env.MACRO_TEST_CANARY;
  });

  test('a deployment of TypeScript source builds in the sandbox: types erased, default export checked', async () => {
    const made = await s.api('POST', '/api/v1/components', { name: 'ts', kind: 'node', source: "import { createHash } from 'node:crypto';\ninterface In { v: string }\nconst f = (i: In): string => createHash('sha256').update(i.v).digest('hex').slice(0, 8);\nexport default async (api: unknown): Promise<string> => f({ v: 'x' });" });
    expect(made.status).toBe(201);
    const deploymentId = await deployed(s, made.body.id, made.body.latestRevision.id);
    await activateDeployment(s, made.body.id, deploymentId);
    await s.endpoint({ method: 'GET', path: '/ts', componentId: made.body.id, popResult: 'default' });
    const r = await s.invoke('GET', '/ts');
    expect(r.status).toBe(200);
    expect(await r.json()).toBe(new Bun.CryptoHasher('sha256').update('x').digest('hex').slice(0, 8));
  });
});
