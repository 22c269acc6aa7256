// `npm run bench`: runs every bench in bench/ one after another, each as its own child process
// (so one bench's JIT state, heap and servers never touch the next), printing their output as it
// comes. Names as arguments run a subset, in the order given:
//
//   node_modules/.bin/bun bench/run.ts                  (all)
//   node_modules/.bin/bun bench/run.ts router invoke    (a subset)
//
// Each bench takes its own options when run directly (see bench/README.md).
import { join } from 'node:path';

/** In the order `npm run bench` runs them: quick in-process ones first, load tests last. */
const BENCHES = ['router', 'index-build', 'guard-prep', 'list-query', 'list-stall', 'invocation-writer', 'runs', 'executor-channel', 'invoke'] as const;

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(BENCHES as readonly string[]).includes(name));
if (unknown.length > 0) {
  process.stderr.write(`unknown bench: ${unknown.join(', ')}\navailable: ${BENCHES.join(', ')}\n`);
  process.exit(2);
}
const selected = requested.length > 0 ? requested : [...BENCHES];

const results: { name: string; code: number; seconds: number }[] = [];
for (const name of selected) {
  const file = join(import.meta.dir, `${name}.ts`);
  process.stdout.write(`\n=== ${name}: bun bench/${name}.ts (${new Date().toISOString()}) ===\n\n`);
  const started = performance.now();
  const child = Bun.spawn([process.execPath, file], { cwd: join(import.meta.dir, '..'), stdio: ['inherit', 'inherit', 'inherit'] });
  // Ctrl-C reaches the child through the terminal's process group; wait for it rather than orphan it.
  const code = await child.exited;
  results.push({ name, code, seconds: (performance.now() - started) / 1000 });
}

process.stdout.write('\n=== summary ===\n');
for (const r of results) process.stdout.write(`${r.name.padEnd(18)} ${r.code === 0 ? 'ok    ' : `FAILED (exit ${r.code})`} ${r.seconds.toFixed(0).padStart(5)} s\n`);
process.exit(results.some((r) => r.code !== 0) ? 1 : 0);
