// Timing helpers shared by the benches: throughput over interleaved rounds, and repeated one-shot timings.

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface Contestant {
  readonly name: string;
  /** Runs one batch and returns how many operations it did. */
  readonly batch: () => number;
}

export interface ThroughputOptions {
  /** Rounds per contestant; contestants take turns each round so drift hits all alike. */
  readonly rounds?: number;
  /** Wall time per contestant per round. */
  readonly roundMs?: number;
  /** Untimed time per contestant before the first round, for the JIT. */
  readonly warmupMs?: number;
}

/** Operations per second for each contestant: the median over interleaved rounds. */
export function throughput(contestants: readonly Contestant[], options: ThroughputOptions = {}): Map<string, number> {
  const { rounds = 5, roundMs = 300, warmupMs = 300 } = options;
  for (const c of contestants) runFor(c.batch, warmupMs);
  const samples = new Map<string, number[]>(contestants.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const c of contestants) {
      const { ops, ms } = runFor(c.batch, roundMs);
      samples.get(c.name)!.push((ops / ms) * 1000);
    }
  }
  return new Map([...samples].map(([name, perRound]) => [name, median(perRound)]));
}

function runFor(batch: () => number, budgetMs: number): { ops: number; ms: number } {
  let ops = 0;
  const start = performance.now();
  let now = start;
  do {
    ops += batch();
    now = performance.now();
  } while (now - start < budgetMs);
  return { ops, ms: now - start };
}

export interface OneShotTimes {
  readonly median: number;
  readonly min: number;
}

/**
 * Wall time in milliseconds of one call of each contestant, over `runs` interleaved rounds after
 * `warmup` untimed ones. The heap is collected before each timed call, so one contestant's
 * garbage is not collected on another's clock; a call's own garbage still counts.
 */
export function oneShot(contestants: readonly { name: string; run: () => unknown }[], runs = 21, warmup = 5): Map<string, OneShotTimes> {
  const samples = new Map<string, number[]>(contestants.map((c) => [c.name, []]));
  for (let round = 0; round < warmup + runs; round++) {
    for (const c of contestants) {
      Bun.gc(true);
      const start = performance.now();
      c.run();
      const ms = performance.now() - start;
      if (round >= warmup) samples.get(c.name)!.push(ms);
    }
  }
  return new Map([...samples].map(([name, ms]) => [name, { median: median(ms), min: Math.min(...ms) }]));
}

/** The value at fraction `p` (0..1) of a non-empty list, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

export interface AsyncContestant {
  readonly name: string;
  /** Runs one batch and resolves with how many operations it did. */
  readonly batch: () => Promise<number>;
}

/** `throughput` for contestants whose batches await (database writes): the median over interleaved rounds. */
export async function throughputAsync(contestants: readonly AsyncContestant[], options: ThroughputOptions = {}): Promise<Map<string, number>> {
  const { rounds = 5, roundMs = 300, warmupMs = 300 } = options;
  for (const c of contestants) await runForAsync(c.batch, warmupMs);
  const samples = new Map<string, number[]>(contestants.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    // Every other round in reverse, so that no contestant always follows the same one.
    for (const c of round % 2 === 0 ? contestants : [...contestants].reverse()) {
      const { ops, ms } = await runForAsync(c.batch, roundMs);
      samples.get(c.name)!.push((ops / ms) * 1000);
    }
  }
  return new Map([...samples].map(([name, perRound]) => [name, median(perRound)]));
}

async function runForAsync(batch: () => Promise<number>, budgetMs: number): Promise<{ ops: number; ms: number }> {
  let ops = 0;
  const start = performance.now();
  let now = start;
  do {
    ops += await batch();
    now = performance.now();
  } while (now - start < budgetMs);
  return { ops, ms: now - start };
}
