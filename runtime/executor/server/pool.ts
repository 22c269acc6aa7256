// Keeps the configured number of hosts running: starts them up front (never on the request path),
// replaces any that dies, asynchronously and with back-off while starts keep failing.
import type { HostHello } from '../host/self-report.ts';
import type { Dispatcher, HostEntry } from './dispatcher.ts';
import type { HostEvents, HostExit, HostLink } from './host-link.ts';

export type Launch = (name: string, events: HostEvents) => Promise<HostLink>;

const MAX_BACKOFF_MS = 5000;
/** After this many failed starts in a row, invocations fail at once instead of waiting for a host. */
const FAILING_AFTER = 3;

export class HostPool {
  private serial = 0;
  private failures = 0;
  private lastError = '';
  private closed = false;
  private readonly timers = new Set<Timer>();
  readonly hellos = new Map<HostEntry, HostHello>();

  constructor(
    readonly size: number,
    private readonly launch: Launch,
    private readonly dispatcher: Dispatcher,
    private readonly log: (line: string) => void,
  ) {}

  /** Starts all hosts; fails only if none of them starts. */
  async warm(): Promise<void> {
    const results = await Promise.allSettled(Array.from({ length: this.size }, () => this.startOne()));
    if (!results.some((r) => r.status === 'fulfilled')) throw new Error(`no executor host could be started: ${this.lastError}`);
  }

  /** Why waiting for a host is pointless, or null. */
  unavailable(): string | null {
    return this.failures >= FAILING_AFTER ? `executor hosts are failing to start (${this.lastError})` : null;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.all(this.dispatcher.hosts.map((h) => h.link.stop()));
  }

  private async startOne(): Promise<void> {
    const name = `executor host ${++this.serial}`;
    let entry: HostEntry | undefined;
    let exitedEarly = false;
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
      if (this.closed || exitedEarly) {
        await link.stop();
        if (exitedEarly) throw new Error('exited right after starting');
        return;
      }
      entry = this.dispatcher.addHost(link);
      this.hellos.set(entry, link.hello);
      this.failures = 0;
    } catch (err) {
      this.failures++;
      this.lastError = err instanceof Error ? err.message : String(err);
      this.log(`executor: ${name} failed to start: ${this.lastError}`);
      this.replaceLater();
      throw err;
    }
  }

  private exited(entry: HostEntry, exit: HostExit): void {
    this.hellos.delete(entry);
    this.dispatcher.removeHost(entry, exit);
    if (this.closed) return;
    this.log(`executor: ${entry.link.name} stopped (${exit.reason}); starting a replacement`);
    this.replaceLater();
  }

  private replaceLater(): void {
    if (this.closed) return;
    const delay = this.failures === 0 ? 0 : Math.min(MAX_BACKOFF_MS, 100 * 2 ** this.failures);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.closed) this.startOne().catch(() => {});
    }, delay);
    this.timers.add(timer);
  }
}
