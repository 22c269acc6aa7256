// Router bench: lookups per second (GitHub API routes, synthetic 10,000 routes) and build time for
// 10,000 routes, ours against memoirist, find-my-way and rou3 in the same run.
// Run: node_modules/.bin/bun bench/router.ts   (from the repository root)
import FindMyWay from 'find-my-way';
import { Memoirist } from 'memoirist';
import { addRoute, createRouter, findRoute } from 'rou3';
import { compileRouter as compileRou3 } from 'rou3/compiler';
import { compileRouter } from '../runtime/router/index.ts';
import { perSecond, millis, ratio, table } from './lib/table.ts';
import { oneShot, throughput } from './lib/timing.ts';

interface BenchRoute {
  readonly method: string;
  readonly pattern: string;
  readonly sample: string;
}

interface Contender {
  readonly name: string;
  /**
   * Builds a matcher whose lookup returns the route's value (its index + 1: find-my-way turns a
   * store of 0 into null), or undefined.
   */
  readonly build: (routes: readonly BenchRoute[]) => (method: string, path: string) => number | undefined;
}

const noop = () => {};

const contenders: readonly Contender[] = [
  {
    name: 'ours (runtime/router)',
    build(routes) {
      const router = compileRouter(routes.map((r, i) => ({ method: r.method, path: r.pattern, value: i + 1 })));
      return (method, path) => router.match(method, path)?.value;
    },
  },
  {
    name: 'memoirist',
    build(routes) {
      const router = new Memoirist<number>();
      routes.forEach((r, i) => router.add(r.method, r.pattern, i + 1));
      return (method, path) => router.find(method, path)?.store;
    },
  },
  {
    name: 'find-my-way',
    build(routes) {
      const router = FindMyWay();
      routes.forEach((r, i) => router.on(r.method as 'GET', r.pattern, noop, i + 1));
      return (method, path) => router.find(method as 'GET', path)?.store as number | undefined;
    },
  },
  {
    name: 'rou3',
    build(routes) {
      const router = createRouter<number>();
      routes.forEach((r, i) => addRoute(router, r.method, r.pattern, i + 1));
      return (method, path) => findRoute(router, method, path)?.data;
    },
  },
  {
    name: 'rou3 (compiled)',
    build(routes) {
      const router = createRouter<number>();
      routes.forEach((r, i) => addRoute(router, r.method, r.pattern, i + 1));
      const find = compileRou3(router);
      return (method, path) => find(method, path)?.data;
    },
  },
];

// --- Route sets ---------------------------------------------------------------------------------

const github = ((await Bun.file(new URL('../../shared/bench-data/github-api-routes.json', import.meta.url)).json()) as {
  routes: BenchRoute[];
}).routes;

/** Deterministic PRNG (mulberry32) so every run benches the same set. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const RESOURCES = ['orders', 'customers', 'invoices', 'products', 'shipments', 'payments', 'tickets', 'reports',
  'accounts', 'projects', 'documents', 'contracts', 'vendors', 'assets', 'campaigns', 'devices'];
const CHILDREN = ['items', 'notes', 'events', 'files', 'tags', 'approvals'];

/**
 * An API-shaped set: `/v{1..3}/{resource}{n}` collections with static siblings of `:id`
 * (`search`, `stats`), six child collections per item, and static `latest` beside `:childId`,
 * so static-versus-named precedence and backtracking are exercised at several depths.
 */
function syntheticRoutes(count: number): BenchRoute[] {
  const random = prng(42);
  const id = () => (random() < 0.5 ? String(Math.floor(random() * 1e6)) : Math.floor(random() * 2 ** 48).toString(16));
  const routes: BenchRoute[] = [];
  const push = (method: string, pattern: string) =>
    routes.push({ method, pattern, sample: pattern.replace(/:[A-Za-z_]+/g, id) });
  for (let r = 0; routes.length < count; r++) {
    const base = `/v${1 + (r % 3)}/${RESOURCES[r % RESOURCES.length]}${Math.floor(r / RESOURCES.length)}`;
    push('GET', base);
    push('POST', base);
    push('GET', `${base}/search`);
    push('GET', `${base}/stats`);
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) push(method, `${base}/:id`);
    for (const child of CHILDREN) {
      push('GET', `${base}/:id/${child}`);
      push('POST', `${base}/:id/${child}`);
      push('GET', `${base}/:id/${child}/latest`);
      push('GET', `${base}/:id/${child}/:childId`);
      push('DELETE', `${base}/:id/${child}/:childId`);
      push('POST', `${base}/:id/${child}/:childId/actions/approve`);
    }
  }
  return routes.slice(0, count);
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const random = prng(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

// --- Lookups ------------------------------------------------------------------------------------

let sink = 0;

function benchLookups(title: string, routes: readonly BenchRoute[]): void {
  const reference = compileRouter(routes.map((r, i) => ({ method: r.method, path: r.pattern, value: i + 1 })));
  // The most specific route for each sample (a sample may hit a more specific static route).
  const expected = routes.map((r) => reference.match(r.method, r.sample)?.value);
  const order = shuffled(routes.map((_, i) => i), 7);
  const methods = order.map((i) => routes[i]!.method);
  const paths = order.map((i) => routes[i]!.sample);

  const notes: string[] = [];
  const contestants = contenders.map((c) => {
    const find = c.build(routes);
    const wrong = routes.filter((r, i) => find(r.method, r.sample) !== expected[i]).length;
    if (wrong > 0) notes.push(`${c.name}: ${wrong} of ${routes.length} samples resolve to another route than ours`);
    return {
      name: c.name,
      batch() {
        for (let i = 0; i < paths.length; i++) sink += find(methods[i]!, paths[i]!) ?? 0;
        return paths.length;
      },
    };
  });
  const rates = throughput(contestants, { rounds: 7, roundMs: 250, warmupMs: 500 });
  const best = Math.max(...rates.values());
  console.log(`\n${title}: ${routes.length} routes, every sample path, lookups per second`);
  console.log(table(['router', 'lookups/s', 'vs fastest'], [...rates].map(([n, v]) => [n, perSecond(v), ratio(v, best)])));
  for (const note of notes) console.log('  note: ' + note);
}

// --- Build --------------------------------------------------------------------------------------

function benchBuild(routes: readonly BenchRoute[]): void {
  const times = oneShot(contenders.map((c) => ({ name: c.name, run: () => c.build(routes) })));
  const best = Math.min(...[...times.values()].map((t) => t.median));
  console.log(`\nBuild: ${routes.length} synthetic routes, from definitions to ready to match (21 interleaved runs)`);
  console.log(table(
    ['router', 'median', 'min', 'vs fastest'],
    [...times].map(([name, t]) => [name, millis(t.median), millis(t.min), ratio(best, t.median)]),
  ));
}

const synthetic = syntheticRoutes(10_000);
console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores`);
benchLookups('GitHub API', github);
benchLookups('Synthetic', synthetic);
benchBuild(synthetic);
if (sink === 42) console.log('');
