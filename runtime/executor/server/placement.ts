// Where an invocation goes: to the Worker already serving its revision (module state and JIT are
// warm there) until that Worker is busy, else to a host of the revision's tenant serving the fewest
// revisions, else to a spare host, which then belongs to that tenant for the rest of its life.
import { MAX_CONCURRENT_PER_WORKER, WORKER_STALL_MS } from '../contract/index.ts';
import type { HostLink } from './host-link.ts';
import type { RevisionEntry } from './revisions.ts';

/** A revision loaded on a host: the host has its source and runs a Worker for it on demand. */
export interface Loaded {
  inflight: number;
  lastUsed: number;
  /** performance.now() when its calls in flight went from none to one, and when one last finished. */
  busySince: number;
  lastAnswer: number;
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
  /**
   * The tenant whose code this host runs; null while it is a spare that has run nothing. Set at
   * the first placement and never changed: Workers of one host share a process (and its channel
   * to the server), so code of another tenant must never run beside it, then or later.
   */
  tenant: string | null;
  /** Being stopped (idle, or to make room for another tenant): takes no new work. */
  retiring: boolean;
  /** performance.now() when work last finished or was placed here. */
  lastUsed: number;
  /** Lines received that answered nothing (component code writing to the channel). */
  ignoredLines: number;
}

export interface PlacementLimits {
  maxWorkersPerHost: number;
  /** Hosts one tenant may hold at once (it takes a spare beyond its first only below this). */
  maxHostsPerTenant: number;
  /** False under worker isolation: one in-process host runs everything (trusted code only). */
  bindTenants: boolean;
}

/** Whether the host takes new work at all. */
export const accepting = (host: HostEntry): boolean => !host.retiring && host.killWatch.size === 0;

/** Calls in flight and none answered for WORKER_STALL_MS: perhaps stuck behind a synchronous loop. */
const stalled = (loaded: Loaded, now: number): boolean => loaded.inflight > 0 && now - Math.max(loaded.busySince, loaded.lastAnswer) > WORKER_STALL_MS;

/**
 * The host for an invocation of revision `key` of `tenant`, or undefined (then the call queues).
 * Warm first: a Worker that already serves the revision takes calls until it has
 * MAX_CONCURRENT_PER_WORKER in flight, so load concentrates and batches stay large (on a small
 * machine that halves the CPU per call compared with spreading). Only then, or for a revision no
 * host serves yet, a host is chosen for it among the tenant's hosts and the spares (while the
 * tenant holds fewer than its limit): the one serving the fewest revisions, which spreads a
 * tenant's components over its hosts so one component's crash or kill touches fewer others. A
 * warm Worker that has stalled is the last resort: while it is stuck, new calls start the revision
 * on another host rather than queue behind it (and fail with it when its deadline kills it).
 */
export function pickHost(hosts: readonly HostEntry[], key: number, tenant: string, limits: PlacementLimits, now = performance.now()): HostEntry | undefined {
  let warm: HostEntry | undefined;
  let stuck: HostEntry | undefined;
  let cold: HostEntry | undefined;
  let spare: HostEntry | undefined;
  let held = 0;
  for (const host of hosts) {
    if (limits.bindTenants && host.tenant !== tenant) {
      if (host.tenant === null && accepting(host) && !spare) spare = host;
      continue;
    }
    if (host.retiring) continue;
    held++;
    // A host with a Worker that may not stop is about to be killed: send it nothing new.
    if (!accepting(host)) continue;
    const loaded = host.loaded.get(key);
    if (loaded) {
      if (loaded.inflight >= MAX_CONCURRENT_PER_WORKER || loaded.killToken !== 0) continue;
      if (stalled(loaded, now)) {
        if (!stuck || host.inflight < stuck.inflight) stuck = host;
      } else if (!warm || host.inflight < warm.inflight) warm = host;
    } else if (host.loaded.size < limits.maxWorkersPerHost || idleVictim(host)) {
      if (!cold || host.loaded.size < cold.loaded.size || (host.loaded.size === cold.loaded.size && host.inflight < cold.inflight)) cold = host;
    }
  }
  if (warm) return warm;
  if (spare && held < limits.maxHostsPerTenant && (!cold || cold.loaded.size > 0)) return spare;
  return cold ?? stuck;
}

/** How many hosts `tenant` holds, not counting those being stopped (they take no more of its work). */
export function hostsOf(hosts: readonly HostEntry[], tenant: string): number {
  let n = 0;
  for (const host of hosts) if (host.tenant === tenant && !host.retiring) n++;
  return n;
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

/**
 * The host to stop so that another tenant can have one: the least recently used host bound to a
 * tenant with nothing in flight (and, when given, none since `idleSince`), preferring tenants that
 * hold more than one host.
 */
export function retireCandidate(hosts: readonly HostEntry[], idleSince = Infinity): HostEntry | undefined {
  let best: HostEntry | undefined;
  let bestShared = false;
  for (const host of hosts) {
    if (host.tenant === null || host.inflight > 0 || !accepting(host) || host.lastUsed > idleSince) continue;
    const shared = hostsOf(hosts, host.tenant) > 1;
    if (!best || (shared && !bestShared) || (shared === bestShared && host.lastUsed < best.lastUsed)) {
      best = host;
      bestShared = shared;
    }
  }
  return best;
}
