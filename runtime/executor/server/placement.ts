// Where an invocation goes: to the Worker already serving its revision (module state and JIT are
// warm there) until that Worker is busy, else to the host serving the fewest revisions.
import { MAX_CONCURRENT_PER_WORKER } from '../limits.ts';
import type { HostLink } from './host-link.ts';
import type { RevisionEntry } from './revisions.ts';

/** A revision loaded on a host: the host has its source and runs a Worker for it on demand. */
export interface Loaded {
  inflight: number;
  lastUsed: number;
  /** Non-zero while a kill of this revision's Worker awaits the host's acknowledgement. */
  killToken: number;
  entry: RevisionEntry;
}

export interface HostEntry {
  link: HostLink;
  inflight: number;
  loaded: Map<number, Loaded>;
  /** Kill tokens awaiting acknowledgement, each with the timer that kills the host instead. */
  killWatch: Map<number, Timer>;
}

/**
 * The host for an invocation of revision `key`, or undefined (then the call queues).
 * Warm first: a Worker that already serves the revision takes calls until it has
 * MAX_CONCURRENT_PER_WORKER in flight, so load concentrates and batches stay large (on a small
 * machine that halves the CPU per call compared with spreading). Only then, or for a revision no
 * host serves yet, a host is chosen for it: the one serving the fewest revisions, which spreads
 * different components over hosts so one component's crash or kill touches fewer others.
 */
export function pickHost(hosts: readonly HostEntry[], key: number, maxWorkersPerHost: number): HostEntry | undefined {
  let warm: HostEntry | undefined;
  let cold: HostEntry | undefined;
  for (const host of hosts) {
    // A host with a Worker that may not stop is about to be killed: send it nothing new.
    if (host.killWatch.size > 0) continue;
    const loaded = host.loaded.get(key);
    if (loaded) {
      if (loaded.inflight < MAX_CONCURRENT_PER_WORKER && loaded.killToken === 0 && (!warm || host.inflight < warm.inflight)) warm = host;
    } else if (host.loaded.size < maxWorkersPerHost || idleVictim(host)) {
      if (!cold || host.loaded.size < cold.loaded.size || (host.loaded.size === cold.loaded.size && host.inflight < cold.inflight)) cold = host;
    }
  }
  return warm ?? cold;
}

/** The least recently used revision on the host with nothing in flight, to make room for another. */
export function idleVictim(host: HostEntry): [number, Loaded] | undefined {
  let victim: [number, Loaded] | undefined;
  for (const pair of host.loaded) {
    const loaded = pair[1];
    if (loaded.inflight === 0 && loaded.killToken === 0 && (!victim || loaded.lastUsed < victim[1].lastUsed)) victim = pair;
  }
  return victim;
}
