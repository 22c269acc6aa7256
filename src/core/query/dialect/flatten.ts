// Flattens a composed drizzle SQL tree into one level before the dialect class renders it.
// The engine composes hundreds of small `sql` fragments; drizzle's renderer recurses into each
// with per-node allocations, which made rendering cost more than compiling. The result keeps
// every value a bound parameter and every identifier escaped by the dialect (`escapeName`), so
// `sqlToQuery` of the flat SQL gives exactly the text and params of the nested one.
import { Name, Param, SQL, StringChunk } from 'drizzle-orm';

export function flatten(query: SQL, escapeName: (name: string) => string): SQL {
  const chunks: unknown[] = [];
  const pieces: string[] = [];
  const push = (value: unknown) => {
    chunks.push(new StringChunk(pieces.join('')), value);
    pieces.length = 0;
  };
  const walk = (chunk: unknown): void => {
    if (chunk === undefined) return;
    if (chunk === null || typeof chunk !== 'object') {
      if (typeof chunk === 'string' || typeof chunk === 'number' || typeof chunk === 'boolean' || chunk === null) return push(chunk);
      throw new Error(`flatten: unexpected SQL chunk of type ${typeof chunk}`);
    }
    if (chunk instanceof SQL) {
      const list = chunk.queryChunks;
      for (let i = 0; i < list.length; i++) walk(list[i]);
    } else if (chunk instanceof StringChunk) {
      const v = chunk.value;
      for (let i = 0; i < v.length; i++) {
        const piece = v[i];
        if (piece) pieces.push(piece);
      }
    } else if (chunk instanceof Name) pieces.push(escapeName(chunk.value));
    else if (chunk instanceof Param) push(chunk.value);
    else if (Array.isArray(chunk)) {
      pieces.push('(');
      for (let i = 0; i < chunk.length; i++) {
        if (i > 0) pieces.push(', ');
        walk(chunk[i]);
      }
      pieces.push(')');
    } else throw new Error(`flatten: unexpected SQL chunk ${Object.prototype.toString.call(chunk)}`);
  };
  walk(query);
  chunks.push(new StringChunk(pieces.join('')));
  return new SQL(chunks as ConstructorParameters<typeof SQL>[0]);
}

const quoted = new Map<string, string>();

/** Both dialects quote identifiers the same way (drizzle's escapeName); names are server-defined, so few. */
export function quoteName(name: string): string {
  let q = quoted.get(name);
  if (q === undefined) {
    q = `"${name.replace(/"/g, '""')}"`;
    if (quoted.size < 10_000) quoted.set(name, q);
  }
  return q;
}
