// What a typed-client generator makes of the control plane's OpenAPI document: openapi-typescript's
// types for every path, with no success response typed `unknown`, and a client written against
// them type-checks (records, list pages, problems by code) while a wrong use does not.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { tempDir } from '../helpers/temp.ts';

let p: TestPlatform;
let generated: string;
let dir: string;
beforeAll(async () => {
  p = await startTestPlatform({ BASE_URL: 'https://api.example.test' });
  const doc = (await p.json<any>('GET', '/api/v1/docs/json')).body;
  generated = astToString(await openapiTS(doc));
  dir = tempDir('openapi-client-');
  writeFileSync(join(dir, 'api.ts'), generated);
});
afterAll(() => p.close());

/** tsc's errors for `source` written against the generated types. */
function typeErrors(source: string): string[] {
  const file = join(dir, `probe-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(file, source);
  const program = ts.createProgram([file], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, allowImportingTsExtensions: true, skipLibCheck: true });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

test('no success response of any operation is typed unknown', () => {
  expect(generated).toContain('operations');
  const unknownSuccess = [...generated.matchAll(/"(application\/json|application\/problem\+json|text\/event-stream)": unknown/g)].map((m) => m[0]);
  expect(unknownSuccess).toEqual([]);
});

test('a client written against the generated types type-checks; a wrong field or code does not', () => {
  const client = `import type { paths, components } from './api.ts';
type Ok<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends { responses: Record<S, { content: { 'application/json': infer T } }> } ? T : never;
type Problem<P extends keyof paths, M extends keyof paths[P], S extends number> = paths[P][M] extends { responses: Record<S, { content: { 'application/problem+json': infer T } }> } ? T : never;
declare const agent: Ok<'/api/v1/agents/{agentId}', 'patch', 200>;
const version: number = agent.version;
const model: string | undefined = agent.config.model;
declare const page: Ok<'/api/v1/agents/runs/{agentRunId}/events', 'get', 200>;
const more: boolean = page.meta.hasMore;
const seq: number | undefined = page.data[0]?.seq;
declare const conflict: Problem<'/api/v1/agents/{agentId}', 'patch', 409>;
const code: 'VERSION_CONFLICT' | 'AGENT_DISABLED' = conflict.code;
const body: components['schemas']['AgentUpdateBody'] = { status: 'PAUSED' };
export { version, model, more, seq, code, body };
`;
  expect(typeErrors(client)).toEqual([]);
  const wrong = `import type { components } from './api.ts';
const body: components['schemas']['AgentUpdateBody'] = { status: 'SLEEPING' };
export { body };
`;
  expect(typeErrors(wrong).join('\n')).toContain('SLEEPING');
}, 60_000);
