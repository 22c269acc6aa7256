// The router's public contract: definitions go in, a matcher for method + raw pathname comes out.

export interface RouteDefinition<T> {
  /** GET, POST, PUT, PATCH or DELETE (uppercase; HEAD is not special). */
  method: string;
  /** `/`-separated static segments and `:name` segments, or `/` alone. */
  path: string;
  value: T;
}

export interface RouteMatch<T> {
  value: T;
  /** Decoded values by name; a null-prototype object. Shared between calls for static routes: read only. */
  params: Record<string, string>;
}

export interface Router<T> {
  /** The most specific route for a raw pathname (no query string), or null. */
  match(method: string, pathname: string): RouteMatch<T> | null;
  readonly size: number;
}
