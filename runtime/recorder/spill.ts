// Invocation records the database could not take before shutdown (or beyond the in-memory cap
// during a long outage) go to a file in DATA_DIR instead of being dropped; the next runtime to
// start on that directory takes them over and writes them. One JSON line per batch:
// {"count":n,"strings":[…],"bytes":"<base64 of the packed records>"} (batch.ts).
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordBatch } from './batch.ts';

const PREFIX = 'unwritten-invocations-';
const SUFFIX = '.jsonl';

/** Writes the batches to a new file (complete or not at all: written aside, then renamed); returns its path. */
export function spillBatches(dir: string, batches: readonly RecordBatch[]): string {
  const name = `${PREFIX}${Date.now()}-${process.pid}-${crypto.randomUUID().slice(0, 8)}${SUFFIX}`;
  const text = batches
    .map((b) => JSON.stringify({ count: b.count, strings: b.strings, bytes: Buffer.from(b.bytes.buffer, b.bytes.byteOffset, b.bytes.byteLength).toString('base64') }))
    .join('\n');
  const path = join(dir, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(`${path}.partial`, `${text}\n`, { mode: 0o600 });
  renameSync(`${path}.partial`, path);
  return path;
}

export interface Claimed {
  batches: RecordBatch[];
  files: number;
  /** Files that could not be read back, left renamed `.unreadable` for a person to look at. */
  unreadable: string[];
}

/**
 * Takes over every spill file in `dir`, oldest first. A file is claimed by renaming it first, so
 * two runtimes starting on one directory never both take it; it is deleted once read, and its
 * records are then this process's to write (and to spill again at a shutdown that cannot).
 */
export function claimSpilled(dir: string): Claimed {
  const out: Claimed = { batches: [], files: 0, unreadable: [] };
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(PREFIX) && n.endsWith(SUFFIX)).sort();
  } catch {
    return out; // no directory yet: nothing spilled
  }
  for (const name of names) {
    const claimed = join(dir, `${name}.claimed-${process.pid}`);
    try {
      renameSync(join(dir, name), claimed);
    } catch {
      continue; // another process took it
    }
    try {
      const batches = readFileSync(claimed, 'utf8').split('\n').filter((l) => l.length > 0).map(parseBatch);
      out.batches.push(...batches);
      out.files++;
      rmSync(claimed);
    } catch {
      const aside = join(dir, `${name}.unreadable`);
      renameSync(claimed, aside);
      out.unreadable.push(aside);
    }
  }
  return out;
}

function parseBatch(line: string): RecordBatch {
  const o = JSON.parse(line) as { count?: unknown; strings?: unknown; bytes?: unknown };
  if (typeof o.count !== 'number' || !Number.isInteger(o.count) || o.count < 0) throw new Error('bad count');
  if (!Array.isArray(o.strings) || !o.strings.every((s) => typeof s === 'string')) throw new Error('bad strings');
  if (typeof o.bytes !== 'string') throw new Error('bad bytes');
  return { count: o.count, strings: o.strings as string[], bytes: new Uint8Array(Buffer.from(o.bytes, 'base64')) };
}
