// Invocation records the database could not take before shutdown (or beyond the in-memory cap
// during a long outage) go to a file in DATA_DIR instead of being dropped; the next runtime to
// start on that directory takes them over and writes them. One JSON line per batch:
// {"count":n,"strings":[…],"bytes":"<base64 of the packed records>"} (batch.ts).
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordBatch } from './batch.ts';
import { processAlive } from '../../src/core/lib/index.ts';

const PREFIX = 'unwritten-invocations-';
const SUFFIX = '.jsonl';

/**
 * Spill files of one directory together stay under this: a long outage spills a batch every few
 * seconds under load, and the next start reads them all back into memory (~2 million records).
 */
const SPILL_LIMIT_BYTES = 256 * 1024 * 1024;

/** Claims and drafts older than this belong to a process that died with them. */
const STALE_MS = 60_000;

/** Bytes held by the spill files (drafts and claims included) in `dir`. */
function spilledBytes(dir: string): number {
  let total = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    try {
      total += statSync(join(dir, name)).size;
    } catch {
      // taken meanwhile
    }
  }
  return total;
}

/**
 * Writes the batches to a new file (complete or not at all: written aside, then renamed); returns
 * its path. Throws when the directory's spill files would exceed `limitBytes` (the caller counts
 * the records as lost), or when the write fails (no draft is left behind).
 */
export function spillBatches(dir: string, batches: readonly RecordBatch[], limitBytes = SPILL_LIMIT_BYTES): string {
  const name = `${PREFIX}${Date.now()}-${process.pid}-${crypto.randomUUID().slice(0, 8)}${SUFFIX}`;
  const text = batches
    .map((b) => JSON.stringify({ count: b.count, strings: b.strings, bytes: Buffer.from(b.bytes.buffer, b.bytes.byteOffset, b.bytes.byteLength).toString('base64') }))
    .join('\n');
  const path = join(dir, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (spilledBytes(dir) + text.length + 1 > limitBytes) {
    throw new Error(`the spill files in ${dir} would exceed ${limitBytes} bytes`);
  }
  try {
    writeFileSync(`${path}.partial`, `${text}\n`, { mode: 0o600 });
    renameSync(`${path}.partial`, path);
  } catch (error) {
    rmSync(`${path}.partial`, { force: true });
    throw error;
  }
  return path;
}

export interface Claimed {
  batches: RecordBatch[];
  files: number;
  /** Files that could not be read back, left renamed `.unreadable` for a person to look at. */
  unreadable: string[];
  /** Drafts a process died writing (incomplete: removed). */
  discardedDrafts: string[];
}

/**
 * Takes over every spill file in `dir`, oldest first. A file is claimed by renaming it first, so
 * two runtimes starting on one directory never both take it; it is deleted once read, and its
 * records are then this process's to write (and to spill again at a shutdown that cannot).
 */
export function claimSpilled(dir: string, staleMs = STALE_MS): Claimed {
  const out: Claimed = { batches: [], files: 0, unreadable: [], discardedDrafts: [] };
  let all: string[];
  try {
    all = readdirSync(dir).filter((n) => n.startsWith(PREFIX));
  } catch {
    return out; // no directory yet: nothing spilled
  }
  // What a process that died left: a claim it never finished reading is spilled records still
  // (taken over under its spilled name), a draft it never finished writing is not (removed).
  const stale = (name: string) => {
    try {
      return staleMs <= 0 || Date.now() - statSync(join(dir, name)).ctimeMs >= staleMs;
    } catch {
      return false;
    }
  };
  for (const name of all) {
    const claim = /^(.*\.jsonl)\.claimed-(\d+)$/.exec(name);
    if (claim && !processAlive(Number(claim[2])) && stale(name)) {
      try {
        renameSync(join(dir, name), join(dir, claim[1]!));
      } catch {
        // another process took it
      }
    } else if (name.endsWith('.partial') && stale(name)) {
      rmSync(join(dir, name), { force: true });
      out.discardedDrafts.push(join(dir, name));
    }
  }
  const names = readdirSync(dir).filter((n) => n.startsWith(PREFIX) && n.endsWith(SUFFIX)).sort();
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
