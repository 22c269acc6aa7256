// The Endpoint runtime's router: compiled once per definition index, matched on every request.
//
// Matching rules, decided here (spec: "prefers the most specific active definition"):
// - Methods GET, POST, PUT, PATCH, DELETE, compared exactly; HEAD is not mapped to GET.
// - Most specific wins: segment by segment, a static segment beats a named one at every
//   position, with backtracking (`/a/b/:x` failing deeper lets `/a/:y/c` match `/a/b/c`).
// - `match` takes the raw pathname, without the query string. Static text compares in the
//   canonical encoded form of encoding.ts, so `/café` matches `/caf%C3%A9`, `/caf%c3%a9` and
//   `/café`; a named segment's value is percent-decoded exactly once (`%2F` gives `/`, `+`
//   stays `+`); a malformed escape anywhere in the pathname means no match.
// - A named segment never matches an empty one; a trailing slash is significant
//   (`/orders/1/` does not match `/orders/:id`); `/` is a route of its own.
// - Dot segments are not resolved here: URL parsers (Bun's `req.url` included) already have.
// - `params` has a null prototype, so a name such as `__proto__` is an ordinary own property.
export type { RouteDefinition, RouteMatch, Router } from './types.ts';
export { compileRouter, ROUTE_METHODS } from './compile.ts';
export { parseRoutePath, routeShape } from '../../src/core/definitions/index.ts';
