// Placement rules (runtime/executor/server/placement.ts) on hand-built host tables: a tenant's code
// goes only to its own hosts or to a spare, the Worker already serving a revision is preferred,
// and the host given up for another tenant is an idle one.
import { describe, expect, test } from 'bun:test';
import type { HostLink } from '../../../runtime/executor/server/host-link.ts';
import { pickHost, retireCandidate, type HostEntry, type PlacementLimits } from '../../../runtime/executor/server/placement.ts';

const LIMITS: PlacementLimits = { maxWorkersPerHost: 4, maxHostsPerTenant: 2, bindTenants: true };

/** `busySince` is when each loaded revision's calls in flight began (default: just now, not stalled). */
function host(name: string, tenant: string | null, loaded: Record<number, number> = {}, lastUsed = 0, busySince = performance.now()): HostEntry {
  const entry: HostEntry = {
    link: { name } as HostLink,
    inflight: 0,
    loaded: new Map(),
    killWatch: new Map(),
    tenant,
    retiring: false,
    lastUsed,
    ignoredLines: 0,
  };
  for (const [key, inflight] of Object.entries(loaded)) {
    entry.loaded.set(Number(key), { inflight, lastUsed: 0, busySince, lastAnswer: 0, killToken: 0, entry: { key: Number(key), tenant: tenant ?? '', json: '', hosts: 1, lastUsed: 0 } });
    entry.inflight += inflight;
  }
  return entry;
}

const name = (h: HostEntry | undefined) => h?.link.name;

describe('pickHost', () => {
  test('never another tenant\'s host, even one with the revision loaded and idle', () => {
    expect(name(pickHost([host('b', 'B', { 1: 0 })], 1, 'A', LIMITS))).toBeUndefined();
  });

  test('a spare when the tenant has no host; the tenant\'s warm Worker before anything else', () => {
    const spare = host('spare', null);
    expect(name(pickHost([host('b', 'B'), spare], 1, 'A', LIMITS))).toBe('spare');
    expect(name(pickHost([spare, host('a', 'A', { 1: 3 })], 1, 'A', LIMITS))).toBe('a');
  });

  test('a new revision spreads to a spare while the tenant holds fewer than its limit, then shares its hosts', () => {
    const spare = host('spare', null);
    expect(name(pickHost([host('a1', 'A', { 1: 0 }), spare], 2, 'A', LIMITS))).toBe('spare');
    expect(name(pickHost([host('a1', 'A', { 1: 0 }), host('a2', 'A', { 3: 0, 4: 0 }), spare], 2, 'A', LIMITS))).toBe('a1');
  });

  test('a busy Worker sends calls to the tenant\'s other host or a spare, and none when the tenant is at its limit', () => {
    const full = { 1: 64 };
    expect(name(pickHost([host('a1', 'A', full), host('spare', null)], 1, 'A', LIMITS))).toBe('spare');
    expect(name(pickHost([host('a1', 'A', full), host('a2', 'A', full), host('spare', null)], 1, 'A', LIMITS))).toBeUndefined();
  });

  test('a Worker that has answered nothing for a while (a synchronous loop?) is passed over while another host can start the revision', () => {
    const now = performance.now() + 10_000; // clear of the clock's start (lastAnswer 0 means never)
    const stuck = () => host('a1', 'A', { 1: 1 }, 0, now - 1_000);
    expect(name(pickHost([stuck(), host('spare', null)], 1, 'A', LIMITS, now))).toBe('spare');
    expect(name(pickHost([stuck(), host('a2', 'A', { 2: 0 })], 1, 'A', LIMITS, now))).toBe('a2');
    // Nowhere else to go: it stays the choice (the call queues behind the stuck one).
    expect(name(pickHost([stuck(), host('a2', 'A', { 2: 1, 3: 1, 4: 1, 5: 1 })], 1, 'A', LIMITS, now))).toBe('a1');
    expect(name(pickHost([stuck()], 1, 'A', { ...LIMITS, maxHostsPerTenant: 1 }, now))).toBe('a1');
    // An answer since restarts the clock: a Worker that keeps answering is not stuck.
    const answering = stuck();
    answering.loaded.get(1)!.lastAnswer = now - 50;
    expect(name(pickHost([answering, host('spare', null)], 1, 'A', LIMITS, now))).toBe('a1');
  });

  test('retiring hosts and hosts awaiting a kill take nothing', () => {
    const retiring = host('a', 'A', { 1: 0 });
    retiring.retiring = true;
    const killing = host('spare', null);
    killing.killWatch.set(1, setTimeout(() => {}, 0));
    expect(name(pickHost([retiring, killing], 1, 'A', LIMITS))).toBeUndefined();
  });

  test('without tenant binding (worker isolation) the one host takes everything', () => {
    const unbound = { ...LIMITS, bindTenants: false };
    expect(name(pickHost([host('only', null, { 9: 0 })], 1, 'A', unbound))).toBe('only');
  });
});

describe('retireCandidate', () => {
  test('an idle host bound to a tenant, least recently used, preferring tenants with several hosts', () => {
    const hosts = [host('spare', null), host('busy', 'A', { 1: 1 }), host('old', 'B', {}, 1), host('newer-shared', 'C', {}, 5), host('c2', 'C', { 2: 1 }, 9)];
    expect(name(retireCandidate(hosts))).toBe('newer-shared');
    expect(name(retireCandidate(hosts.slice(0, 3)))).toBe('old');
    expect(name(retireCandidate(hosts.slice(0, 2)))).toBeUndefined();
  });
});
