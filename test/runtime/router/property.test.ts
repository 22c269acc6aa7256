// Property test: on random route sets and requests, the router agrees with the reference matcher.
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { compileRouter } from '../../../runtime/router/index.ts';
import type { RouteDefinition } from '../../../runtime/router/index.ts';
import { referenceMatcher } from './reference.ts';

// Few distinct texts, so routes collide and compete; some need encoding, some look hostile.
const TEXTS = ['a', 'b', 'ab', 'é', 'a b', 'x|y', '%', 'a/b', '?', ':x', '__proto__', '😀', "'", '${x}'];
const VALUES = [...TEXTS, '1', '42', '', 'a%b', '%2F', '..', '\u00a0'];
const NAMES = ['id', '__proto__', 'constructor', 'x', 'toString', 'y'];
const METHODS = ['GET', 'POST'];

type Segment = { text: string } | { param: true };
interface RouteSpec { method: string; segments: Segment[]; spellings: boolean[] }

const hex = (text: string) => encodeURIComponent(text).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());
const everyByte = (text: string) =>
  [...new TextEncoder().encode(text)].map((b) => '%' + b.toString(16).toUpperCase().padStart(2, '0')).join('');
const rawAllowed = (text: string) => !/[/%?#\\]/.test(text) && text !== '.' && text !== '..';

/** The ways a client may send a segment's text. */
const ENCODERS: ((text: string) => string)[] = [
  encodeURIComponent,
  hex,
  everyByte,
  (t) => (rawAllowed(t) ? new URL('http://h/' + t).pathname.slice(1) : encodeURIComponent(t)), // WHATWG
  (t) => (rawAllowed(t) ? t : encodeURIComponent(t)), // raw, as a non-browser client may pass it
];

/** A definition writes a text raw where it can, else encoded (the spelling flag picks). */
function definitionPath(spec: RouteSpec): string {
  if (spec.segments.length === 0) return '/';
  return spec.segments
    .map((s, i) => {
      if ('param' in s) return ':' + NAMES[i];
      const mustEncode = /[/%?#*]/.test(s.text) || s.text.startsWith(':');
      return mustEncode || spec.spellings[i] ? encodeURIComponent(s.text) : s.text;
    })
    .map((s) => '/' + s)
    .join('');
}

// Texts whose canonical form holds no escape: a router built only from these takes the path
// where the `%` check is deferred until the walk finds nothing (compile.ts).
const PLAIN_TEXTS = ['a', 'b', 'ab', 'x|y', ':x', '__proto__', "'"];

const routeArbOver = (texts: readonly string[]): fc.Arbitrary<RouteSpec> =>
  fc.record({
    method: fc.constantFrom(...METHODS),
    segments: fc.array(
      fc.oneof(fc.constantFrom(...texts).map((text): Segment => ({ text })), fc.constant<Segment>({ param: true })),
      { maxLength: 4 },
    ),
    spellings: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
  });
const routeArb = routeArbOver(TEXTS);

/** Routes with the duplicates (same method and shape) dropped, as the control plane would. */
function definitions(specs: RouteSpec[]): RouteDefinition<number>[] {
  const seen = new Set<string>();
  const out: RouteDefinition<number>[] = [];
  for (const spec of specs) {
    const shape = spec.method + JSON.stringify(spec.segments.map((s) => ('param' in s ? null : s.text)));
    if (seen.has(shape)) continue;
    seen.add(shape);
    out.push({ method: spec.method, path: definitionPath(spec), value: out.length });
  }
  return out;
}

const derivedRequestArb = (specs: RouteSpec[]) =>
  fc.record({
    route: fc.nat({ max: specs.length - 1 }),
    values: fc.array(fc.constantFrom(...VALUES), { minLength: 4, maxLength: 4 }),
    encoders: fc.array(fc.nat({ max: ENCODERS.length - 1 }), { minLength: 4, maxLength: 4 }),
  }).map(({ route, values, encoders }) => {
    const spec = specs[route]!;
    const path = spec.segments
      .map((s, i) => '/' + ENCODERS[encoders[i]!]!('param' in s ? values[i]! : s.text))
      .join('');
    return { method: spec.method, path: path === '' ? '/' : path };
  });

const noisyRequestArb = fc.record({
  method: fc.constantFrom(...METHODS, 'PUT'),
  path: fc.string({ unit: fc.constantFrom('/', '/', 'a', 'b', '%', 'C3', 'A9', '%2F', 'é', ' ', 'x|y', '%zz', ':x'), maxLength: 8 }),
});

function agree(routes: RouteDefinition<number>[], requests: { method: string; path: string }[]): void {
  const router = compileRouter(routes);
  const reference = referenceMatcher(routes);
  for (const { method, path } of requests) {
    const actual = router.match(method, path);
    const expected = reference(method, path);
    const context = `${method} ${JSON.stringify(path)} over ${JSON.stringify(routes.map((r) => r.method + ' ' + r.path))}`;
    expect(actual === null ? null : { value: actual.value, params: { ...actual.params } }, context).toEqual(
      expected === null ? null : { value: expected.value, params: { ...expected.params } },
    );
    if (actual !== null) expect(Object.getPrototypeOf(actual.params)).toBeNull();
  }
}

describe('router agrees with the reference matcher', () => {
  test('on requests built from the routes (every encoding a client may use)', () => {
    fc.assert(
      fc.property(
        fc.array(routeArb, { minLength: 1, maxLength: 25 }).chain((specs) =>
          fc.tuple(fc.constant(specs), fc.array(derivedRequestArb(specs), { minLength: 1, maxLength: 30 })),
        ),
        ([specs, requests]) => agree(definitions(specs), requests),
      ),
      { numRuns: 400 },
    );
  });

  test('on routes with no escaped static text, requested in every encoding', () => {
    fc.assert(
      fc.property(
        fc.array(routeArbOver(PLAIN_TEXTS), { minLength: 1, maxLength: 25 }).chain((specs) =>
          fc.tuple(fc.constant(specs), fc.array(derivedRequestArb(specs), { minLength: 1, maxLength: 30 })),
        ),
        ([specs, requests]) => agree(definitions(specs), requests),
      ),
      { numRuns: 400 },
    );
  });

  test('on noisy requests (malformed escapes, empty segments, stray slashes)', () => {
    fc.assert(
      fc.property(fc.array(routeArb, { maxLength: 25 }), fc.array(noisyRequestArb, { maxLength: 40 }), (specs, requests) =>
        agree(definitions(specs), requests.map((r) => ({ method: r.method, path: r.path }))),
      ),
      { numRuns: 400 },
    );
  });
});
