// Keeps hosts running: a number of warm spares bound to no tenant (started up front and in the
// background, never on the request path), plus the hosts tenants took from them, up to a ceiling.
// A tenant waiting for a host gets a new spare, or, at the ceiling, the place of another tenant's
// host with nothing in flight. Hosts that die are replaced, with back-off while starts keep failing.
import type { HostHello } from '../host/index.ts';
import type { Dispatcher, HostEntry } from './dispatcher.ts';
import type { HostEvents, HostExit, HostLink } from './host-link.ts';
import { accepting, retireCandidate } from './placement.ts';

export type Launch = (name: string, events: HostEvents) => Promise<HostLink>;

const MAX_BACKOFF_MS = 5000;
/** After this many failed starts in a row, invocations fail at once instead of waiting for a host. */
const FAILING_AFTER = 3;

export interface PoolSize {
  /** Spares kept warm. */
  spares: number;
  /** Hosts running at most (spares included). */
  max: number;
  /**
   * At the ceiling, a tenant's host idle this long gives its place to a spare: a spare lets the
   * next new tenant start at once instead of waiting for a host to start.
   */
  reclaimIdleMs: number;
}

export class HostPool {
  private serial = 0;
  private starting = 0;
  private failures = 0;
  private lastError = '';
  /** Hosts that stopped without being retired (a crash, a kill past a deadline), each replaced since. */
  replaced = 0;
  private closed = false;
  private retry: Timer | undefined;
  readonly hellos = new Map<HostEntry, HostHello>();

  constructor(
    readonly size: PoolSize,
    private readonly launch: Launch,
    private readonly dispatcher: Dispatcher,
    private readonly log: (line: string) => void,
  ) {}

  /** Starts the spares; fails only if none of them starts. */
  async warm(): Promise<void> {
    const started = await Promise.all(Array.from({ length: this.size.spares }, () => this.startOne()));
    if (!started.includes(true)) throw new Error(`no executor host could be started: ${this.lastError}`);
  }

  /** Why waiting for a host is pointless, or null. */
  unavailable(): string | null {
    return this.failures >= FAILING_AFTER ? `executor hosts are failing to start (${this.lastError})` : null;
  }

  /** Hosts running or starting, retiring ones not counted. */
  get total(): number {
    let n = this.starting;
    for (const host of this.dispatcher.hosts) if (!host.retiring) n++;
    return n;
  }

  get spares(): number {
    let n = 0;
    for (const host of this.dispatcher.hosts) if (host.tenant === null && accepting(host)) n++;
    return n;
  }

  /**
   * Brings the spares back to their number and gives each tenant that waits for a host one: a
   * new host while under the ceiling, else the place of the least recently used idle host of a tenant.
   */
  adjust(): void {
    if (this.closed || this.retry !== undefined) return;
    const available = this.spares + this.starting;
    const forSpares = this.size.spares - available;
    const forWaiting = this.dispatcher.wanting.size - available;
    for (let i = 0; i < Math.max(forSpares, forWaiting); i++) {
      if (this.total >= this.size.max) {
        // Room for a tenant that waits is worth any other tenant's idle host; a spare, only one
        // that has been idle for a while.
        const waiting = i < forWaiting;
        const victim = retireCandidate(this.dispatcher.hosts, waiting ? Infinity : performance.now() - this.size.reclaimIdleMs);
        if (!victim) return;
        this.retire(victim, waiting ? 'making room for another tenant' : 'idle at the ceiling; its place goes to a spare');
      }
      void this.startOne();
    }
  }

  /** Stops spares beyond their number (started for tenants that got a host another way). */
  trimSpares(): void {
    if (this.dispatcher.wanting.size > 0) return;
    let extra = this.spares - this.size.spares;
    for (const host of this.dispatcher.hosts) {
      if (extra <= 0) return;
      if (host.tenant !== null || !accepting(host)) continue;
      this.retire(host, 'a spare beyond EXECUTOR_HOSTS');
      extra--;
    }
  }

  /** Stops a host (bound to a tenant, or a spare too many); it takes no new work from now on. */
  retire(host: HostEntry, why: string): void {
    if (host.retiring) return;
    host.retiring = true;
    this.log(`executor: ${host.link.name} (${host.tenant === null ? 'spare' : `tenant ${host.tenant}`}) retired: ${why}`);
    void host.link.stop();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.retry = undefined;
    await Promise.all(this.dispatcher.hosts.map((h) => h.link.stop()));
  }

  /** Starts one host; resolves true once it takes work, false if it could not be started. */
  private async startOne(): Promise<boolean> {
    const name = `executor host ${++this.serial}`;
    let entry: HostEntry | undefined;
    let exitedEarly = false;
    let counted = true;
    const settled = (): void => {
      if (counted) this.starting--;
      counted = false;
    };
    this.starting++;
    try {
      const link = await this.launch(name, {
        onLines: (batch) => {
          if (entry) this.dispatcher.onLines(entry, batch);
        },
        onExit: (exit) => {
          if (entry) this.exited(entry, exit);
          else exitedEarly = true;
        },
      });
      settled();
      if (this.closed || exitedEarly) {
        await link.stop();
        if (exitedEarly) throw new Error('exited right after starting');
        return false;
      }
      this.failures = 0;
      entry = this.dispatcher.addHost(link);
      this.hellos.set(entry, link.hello);
      return true;
    } catch (err) {
      settled();
      this.failures++;
      this.lastError = err instanceof Error ? err.message : String(err);
      this.log(`executor: ${name} failed to start: ${this.lastError}`);
      this.retryLater();
      return false;
    }
  }

  private exited(entry: HostEntry, exit: HostExit): void {
    this.hellos.delete(entry);
    this.dispatcher.removeHost(entry, exit);
    if (this.closed) return;
    if (!entry.retiring) {
      this.replaced++;
      this.log(`executor: ${entry.link.name} stopped (${exit.reason})`);
    }
    this.adjust();
  }

  private retryLater(): void {
    if (this.closed || this.retry !== undefined) return;
    const delay = Math.min(MAX_BACKOFF_MS, 100 * 2 ** this.failures);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.adjust();
    }, delay);
  }
}
