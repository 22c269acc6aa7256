// The README's walk-through, run as written (its ```sh block) against a running server, twice in
// a row on the same data (issue #24 point 5): every step answers what its comment says.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN, startServer, type Server } from '../blackbox/server.ts';

const readme = readFileSync(join(import.meta.dir, '..', '..', 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Walk-through'));
const script = section.slice(section.indexOf('```sh\n') + 6, section.indexOf('\n```', section.indexOf('```sh\n')));

let server: Server;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

async function walk(): Promise<string> {
  const body = script
    .replace(/^ADMIN=.*$/m, `ADMIN=${ADMIN}`)
    .replaceAll('http://127.0.0.1:8080', server.cp)
    .replaceAll('http://127.0.0.1:8081', server.runtime);
  const child = Bun.spawn(['bash', '-c', body], { stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  expect(await child.exited).toBe(0);
  return out + err;
}

test('the walk-through runs as written, twice on the same data', async () => {
  expect(script).toContain('curl');
  for (let pass = 0; pass < 2; pass++) {
    const out = await walk();
    expect(out).toContain('"code":"VERSION_CONFLICT"');
    expect(out).toContain('"pointer":"/config/maxTicks"');
    expect(out).toContain('event: run.completed');
    expect(out).toContain('"total":10');
    expect(out).toContain('"error":"qty must be a positive integer"');
    for (const wrong of ['"status":401', 'ROUTE_CONFLICT', '"code":"NOT_FOUND"', 'SyntaxError', '"code":"CONFLICT"']) expect(out).not.toContain(wrong);
    // Every answer ends its line: no two JSON documents run together.
    expect(out).not.toMatch(/\}\{/);
  }
}, 90_000);
