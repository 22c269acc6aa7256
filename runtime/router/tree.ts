// The segment tree for routes with named segments: one node per segment, static children keyed
// by canonical segment, one named child; lookup walks the raw pathname with backtracking.

export interface Leaf<T> {
  readonly value: T;
  /** The definition's path, for error messages. */
  readonly path: string;
  /** Parameter names, and the (0-based) segment index where each one's value is. */
  readonly names: readonly string[];
  readonly positions: readonly number[];
}

export interface Node<T> {
  /** Static children as parallel arrays; keys are canonical, hence ASCII. */
  keys: string[];
  children: Node<T>[];
  /**
   * Once there are many keys: a hash table of indices into `keys`, hashed on the segment's first
   * and last characters and length, which the walk reads in place. Hashing a substring for a
   * Map costs more; bucketing on the first character alone degrades on `items1`…`items99`.
   */
  slots: (number[] | undefined)[] | null;
  /** `32 - log2(slots.length)`. */
  shift: number;
  param: Node<T> | null;
  leaf: Leaf<T> | null;
}

// Up to this many static children, comparing each in place beats hashing.
const LINEAR_MAX = 4;

// Most nodes never get a static child (leaves, named segments): they share these until one does.
const NO_KEYS: string[] = [];
const NO_CHILDREN: Node<never>[] = [];

export function createNode<T>(): Node<T> {
  return { keys: NO_KEYS, children: NO_CHILDREN, slots: null, shift: 0, param: null, leaf: null };
}

function slotOf(first: number, last: number, size: number, shift: number): number {
  return Math.imul(first ^ (last << 8) ^ (size << 16), 0x9e3779b1) >>> shift;
}

export function staticChild<T>(node: Node<T>, key: string): Node<T> {
  const { keys, children } = node;
  if (node.slots === null) {
    for (let i = 0; i < keys.length; i++) if (keys[i] === key) return children[i]!;
  } else {
    const candidates = node.slots[slotOf(key.charCodeAt(0), key.charCodeAt(key.length - 1), key.length, node.shift)];
    if (candidates !== undefined) for (const index of candidates) if (keys[index] === key) return children[index]!;
  }
  const child = createNode<T>();
  if (keys === NO_KEYS) {
    node.keys = [key];
    node.children = [child];
    return child;
  }
  keys.push(key);
  children.push(child);
  // Keep the table at most half full; rebuild it at double size when it would not be.
  if (node.slots !== null && keys.length * 2 <= node.slots.length) addSlot(node, keys.length - 1);
  else if (keys.length > LINEAR_MAX) {
    const bits = Math.ceil(Math.log2(keys.length * 4));
    node.slots = new Array<number[] | undefined>(2 ** bits);
    node.shift = 32 - bits;
    for (let index = 0; index < keys.length; index++) addSlot(node, index);
  }
  return child;
}

function addSlot<T>(node: Node<T>, index: number): void {
  const key = node.keys[index]!;
  const slot = slotOf(key.charCodeAt(0), key.charCodeAt(key.length - 1), key.length, node.shift);
  (node.slots![slot] ??= []).push(index);
}

export function paramChild<T>(node: Node<T>): Node<T> {
  return (node.param ??= createNode());
}

/**
 * Finds the most specific leaf for the segment of `path` starting at `start` (just after a `/`)
 * and the rest after it. At each segment the static child is tried first and the named child
 * only when the static branch finds nothing deeper: "a static segment beats a named one at every
 * position", with backtracking. `path` must be canonical wherever static keys are compared
 * (compile.ts says how each caller ensures it). On success the values of named segments on the
 * winning branch are in `found[segmentIndex]`: a failed branch may leave other entries behind,
 * never at a named position of the winner, which writes those last.
 */
export function walk<T>(
  node: Node<T>,
  path: string,
  start: number,
  depth: number,
  found: string[],
  /** False on the fast path: give up (null) at a named segment holding `%`. */
  escapes: boolean,
): Leaf<T> | null {
  const length = path.length;
  // Recursion only where there is something to come back to: a static match with a named
  // sibling. Otherwise the walk goes on in this frame.
  for (;;) {
    const child = staticMatch(node, path, start);
    const param = node.param;
    if (child !== undefined) {
      const end = start + node.keys[child]!.length;
      const next = node.children[child]!;
      if (param === null) {
        if (end === length) return next.leaf;
        node = next;
        start = end + 1;
        depth++;
        continue;
      }
      const leaf = end === length ? next.leaf : walk(next, path, end + 1, depth + 1, found, escapes);
      if (leaf !== null) return leaf;
    }
    if (param === null) return null;
    let end = start;
    for (let code; end < length && (code = path.charCodeAt(end)) !== 47 /* / */; end++) {
      // An escape: the value needs decoding, and the segment may equal a static key once
      // normalised. The caller retries on the slow path (see compile.ts).
      if (code === 37 /* % */ && !escapes) return null;
    }
    // A named segment never matches an empty one (`/orders//items`, or a trailing slash).
    if (end === start) return null;
    found[depth] = path.slice(start, end);
    if (end === length) return param.leaf;
    node = param;
    start = end + 1;
    depth++;
  }
}

/** The index of the static child whose key is the whole segment at `start`, or undefined. */
function staticMatch<T>(node: Node<T>, path: string, start: number): number | undefined {
  const keys = node.keys;
  if (node.slots === null) {
    for (let i = 0; i < keys.length; i++) if (segmentIs(path, keys[i]!, start)) return i;
    return undefined;
  }
  const length = path.length;
  let end = start;
  while (end < length && path.charCodeAt(end) !== 47 /* / */) end++;
  const size = end - start;
  if (size === 0) return undefined;
  const candidates = node.slots[slotOf(path.charCodeAt(start), path.charCodeAt(end - 1), size, node.shift)];
  if (candidates === undefined) return undefined;
  for (let i = 0; i < candidates.length; i++) {
    const index = candidates[i]!;
    if (keys[index]!.length === size && segmentIs(path, keys[index]!, start)) return index;
  }
  return undefined;
}

/**
 * Whether the segment of `path` at `start` is exactly `key`: compared in place, with no
 * substring; for keys this short a loop the JIT compiles beats `startsWith(key, start)`.
 */
function segmentIs(path: string, key: string, start: number): boolean {
  const end = start + key.length;
  if (end > path.length || (end < path.length && path.charCodeAt(end) !== 47) /* / */) return false;
  for (let i = 0; i < key.length; i++) if (path.charCodeAt(start + i) !== key.charCodeAt(i)) return false;
  return true;
}
