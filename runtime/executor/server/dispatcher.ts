// Places invocations on hosts and sees them through: picks a host of the revision's tenant (the
// revision's Worker warm, least loaded) or binds a spare to the tenant, queues briefly when none
// can take it (asking the pool for a host when the tenant may have another), enforces deadlines (answer 504, terminate
// the Worker, kill the host if the Worker will not stop), serves api.platform calls, and turns
// every host death into explicit failures. Never retries. Where a call goes is placement.ts, what
// its lines carry encode.ts and decode.ts, how a Worker past its deadline is stopped kill-watch.ts.
import {
  HOST_WAIT_LIMIT_MS,
  MAX_TIMEOUT_MS,
  MIN_TIMEOUT_MS,
  type CodeRevision,
  type ExecutionFailureCode,
  type ExecutionOutcome,
  type ExecutionRequest,
  type VerifyOutcome,
} from '../contract/index.ts';
import { eachLine, field, line, payload } from '../wire/index.ts';
import { decodeOutcome, decodeVerify, failure } from './decode.ts';
import { encodeRun } from './encode.ts';
import type { HostExit, HostLink } from './host-link.ts';
import { acknowledgeKill, watchKill } from './kill-watch.ts';
import type { Pending, RunPending, VerifyPending } from './pending.ts';
import { accepting, hostsOf, idleVictim, pickHost, type HostEntry, type Loaded, type PlacementLimits } from './placement.ts';
import { servePlatformCall } from './platform-relay.ts';
import { RevisionRegistry } from './revisions.ts';
import { newSecret } from './secrets.ts';

export type { HostEntry } from './placement.ts';

/** Deadline resolution. */
const SWEEP_MS = 10;
/** Lines a host may send that answer nothing (written by component code) before it is killed. */
const IGNORED_LINES_LIMIT = 10_000;

export interface DispatcherOptions {
  limits: PlacementLimits;
  verifyTimeoutMs: number;
  /** Why no host can be expected soon (starts keep failing), or null when waiting makes sense. */
  unavailable: () => string | null;
  /** Tenants are waiting for a host of their own (`wanting`), or a spare was just bound: the pool may act. */
  hostsChanged: () => void;
  log: (line: string) => void;
}

export class Dispatcher {
  readonly hosts: HostEntry[] = [];
  /** Tenants with queued invocations that no host can take and that may take a spare: each needs one. */
  readonly wanting = new Set<string>();
  private readonly pending = new Map<number, Pending>();
  private queue: Pending[] = [];
  private readonly revisions = new RevisionRegistry();
  private nextId = 1;
  /** Invocations whose caller has not been answered yet. */
  private unanswered = 0;
  private idleWaiters: (() => void)[] = [];
  private sweep: Timer | undefined;

  constructor(private readonly options: DispatcherOptions) {}

  /** Hosts that take new work (not about to be killed for a Worker that would not stop). */
  get readyHosts(): number {
    let n = 0;
    for (const host of this.hosts) if (accepting(host)) n++;
    return n;
  }

  /** Hosts that take new work and have some in flight. */
  get busyHosts(): number {
    let n = 0;
    for (const host of this.hosts) if (accepting(host) && host.inflight > 0) n++;
    return n;
  }

  /** Component Workers the hosts run: one per revision loaded on a host. */
  get workers(): number {
    let n = 0;
    for (const host of this.hosts) n += host.loaded.size;
    return n;
  }

  /** Resolves once every invocation accepted so far has been answered. */
  whenIdle(): Promise<void> {
    if (this.unanswered === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  execute(request: ExecutionRequest): Promise<ExecutionOutcome> {
    const { promise, resolve } = Promise.withResolvers<ExecutionOutcome>();
    const timeoutMs = Math.min(MAX_TIMEOUT_MS, Math.max(MIN_TIMEOUT_MS, Math.floor(request.timeoutMs) || MIN_TIMEOUT_MS));
    const p: RunPending = {
      kind: 'run', id: this.nextId++, secret: newSecret(), entry: this.revisions.entry(request.revision), host: null, loaded: null,
      deadline: 0, awaitingHost: false, answered: false, queued: false, timeoutMs, request, resolve,
    };
    this.start(p);
    // A caller that gives up (an agent run cancelled) ends it as its deadline would; one in
    // transit to its host is left to the deadline sweep.
    const giveUp = () => {
      if (!p.answered && (p.queued || p.loaded)) this.deadlineFor(p);
    };
    if (request.signal?.aborted) giveUp();
    else request.signal?.addEventListener('abort', giveUp, { once: true });
    return promise;
  }

  verify(revision: CodeRevision): Promise<VerifyOutcome> {
    const { promise, resolve } = Promise.withResolvers<VerifyOutcome>();
    const p: VerifyPending = {
      kind: 'verify', id: this.nextId++, secret: newSecret(), entry: this.revisions.transient(revision), host: null, loaded: null,
      deadline: 0, awaitingHost: false, answered: false, queued: false, timeoutMs: this.options.verifyTimeoutMs, resolve,
    };
    this.start(p);
    return promise;
  }

  addHost(link: HostLink): HostEntry {
    const host: HostEntry = { link, inflight: 0, loaded: new Map(), killWatch: new Map(), tenant: null, retiring: false, lastUsed: performance.now(), ignoredLines: 0 };
    this.hosts.push(host);
    this.drain();
    return host;
  }

  /** The host is gone: everything it held fails now, explicitly. */
  removeHost(host: HostEntry, exit: HostExit): void {
    const index = this.hosts.indexOf(host);
    if (index !== -1) this.hosts.splice(index, 1);
    for (const timer of host.killWatch.values()) clearTimeout(timer);
    host.killWatch.clear();
    for (const loaded of host.loaded.values()) loaded.entry.hosts--;
    host.loaded.clear();
    const message = `the executor host stopped while running the component (${exit.reason})`;
    for (const p of this.pending.values()) {
      if (p.host !== host) continue;
      this.pending.delete(p.id);
      this.fail(p, 502, exit.outOfMemory ? 'EXECUTOR_RESOURCE_LIMIT' : 'EXECUTOR_CRASHED', message);
    }
    this.drain();
  }

  onLines(host: HostEntry, batch: string): void {
    let ignored = 0;
    eachLine(batch, (text) => {
      switch (text[0]) {
        case 'D': {
          const p = this.owned(host, text);
          if (p) this.done(host, p, payload(text));
          else ignored++;
          return;
        }
        case 'C': {
          const p = this.owned(host, text);
          if (p?.kind === 'run') this.platformCall(host, p, payload(text));
          else ignored++;
          return;
        }
        case 'k':
          if (!this.killAcknowledged(host, field(text, 0))) ignored++;
          return;
        default:
          ignored++;
      }
    });
    // A host never sends lines that answer nothing; component code writing to its channel does.
    // Each costs the server's thread a look, so a host that keeps sending them is stopped.
    if (ignored > 0 && (host.ignoredLines += ignored) > IGNORED_LINES_LIMIT && !host.retiring) {
      this.options.log(`executor: ${host.link.name} killed: ${host.ignoredLines} lines on its channel answered nothing`);
      host.link.kill('its component code wrote to the host channel');
    }
    if (this.queue.length > 0) this.drain();
  }

  /**
   * Stops Workers idle longer than `idleMs`; returns the hosts bound to a tenant that are left
   * with nothing loaded and nothing in flight (they may be stopped: they never serve anyone else).
   */
  evictIdle(now: number, idleMs: number): HostEntry[] {
    const empty: HostEntry[] = [];
    for (const host of this.hosts) {
      for (const [key, loaded] of host.loaded) {
        if (loaded.inflight === 0 && loaded.killToken === 0 && now - loaded.lastUsed > idleMs) this.unload(host, key, loaded);
      }
      if (this.options.limits.bindTenants && host.tenant !== null && host.loaded.size === 0 && host.inflight === 0 && accepting(host)) empty.push(host);
    }
    this.revisions.forgetUnused(now, idleMs);
    return empty;
  }

  private start(p: Pending): void {
    this.unanswered++;
    const now = performance.now();
    p.deadline = now + p.timeoutMs;
    // One periodic sweep instead of a timer per invocation: cheaper on the hot path, and a
    // deadline is kept to within SWEEP_MS.
    this.sweep ??= setInterval(this.expire, SWEEP_MS);
    const host = pickHost(this.hosts, p.entry.key, p.entry.tenant, this.options.limits, now);
    if (host) return this.dispatch(p, host);
    const held = this.options.limits.bindTenants ? hostsOf(this.hosts, p.entry.tenant) : this.hosts.length;
    const reason = held === 0 ? this.options.unavailable() : null;
    if (reason !== null) return this.fail(p, 502, 'EXECUTOR_CRASHED', reason);
    p.queued = true;
    this.queue.push(p);
    // Waiting for a host to start is not the component's run time ("maximum runtime"): it gets
    // its own, longer, allowance, and the deadline starts over at dispatch.
    if (held === 0 && this.options.limits.bindTenants) {
      p.awaitingHost = true;
      p.deadline = performance.now() + Math.max(p.timeoutMs, HOST_WAIT_LIMIT_MS);
    }
    if (this.mayTakeAnother(p.entry.tenant)) {
      this.wanting.add(p.entry.tenant);
      this.options.hostsChanged();
    }
  }

  /** Whether the tenant may be given another host (it holds fewer than its limit). */
  private mayTakeAnother(tenant: string): boolean {
    return this.options.limits.bindTenants && hostsOf(this.hosts, tenant) < this.options.limits.maxHostsPerTenant;
  }

  private dispatch(p: Pending, host: HostEntry): void {
    const key = p.entry.key;
    if (p.awaitingHost) {
      p.awaitingHost = false;
      p.deadline = performance.now() + p.timeoutMs;
    }
    const bound = host.tenant === null && this.options.limits.bindTenants;
    if (bound) {
      host.tenant = p.entry.tenant;
      this.wanting.delete(host.tenant);
    }
    let loaded = host.loaded.get(key);
    if (!loaded) {
      if (host.loaded.size >= this.options.limits.maxWorkersPerHost) {
        const victim = idleVictim(host);
        if (victim) this.unload(host, victim[0], victim[1]);
      }
      loaded = { inflight: 0, lastUsed: 0, busySince: 0, lastAnswer: 0, killToken: 0, entry: p.entry };
      host.loaded.set(key, loaded);
      p.entry.hosts++;
      host.link.send(line('L', [key], p.entry.json));
    }
    const now = performance.now();
    if (loaded.inflight++ === 0) loaded.busySince = now;
    loaded.lastUsed = host.lastUsed = now;
    host.inflight++;
    p.host = host;
    p.loaded = loaded;
    this.pending.set(p.id, p);
    if (p.kind === 'run') {
      host.link.send(line('R', [p.id, key, p.secret[0], p.secret[1]], encodeRun(p.request)));
    } else {
      host.link.send(line('V', [p.id, key, p.secret[0], p.secret[1]]));
    }
    // Only now, with the call counted on the host: the pool may stop idle hosts to replace the spare.
    if (bound) this.options.hostsChanged();
  }

  private unload(host: HostEntry, key: number, loaded: Loaded): void {
    host.loaded.delete(key);
    loaded.entry.hosts--;
    host.link.send(line('X', [key]));
  }

  /**
   * Places what it can from the queue, in order. A revision that found no host is not tried again
   * in the same pass (placing others only adds load), so a backlog of one revision costs one look
   * per call, and it does not hold up other tenants' calls behind it.
   */
  private drain(): void {
    if (this.queue.length === 0) return;
    let stuck: Set<number> | undefined;
    const wanting = new Set<string>();
    let kept = 0;
    for (let i = 0; i < this.queue.length; i++) {
      const p = this.queue[i]!;
      const host = stuck?.has(p.entry.key) ? undefined : pickHost(this.hosts, p.entry.key, p.entry.tenant, this.options.limits);
      if (host) {
        p.queued = false;
        this.dispatch(p, host);
        continue;
      }
      (stuck ??= new Set()).add(p.entry.key);
      if (this.mayTakeAnother(p.entry.tenant)) wanting.add(p.entry.tenant);
      this.queue[kept++] = p;
    }
    this.queue.length = kept;
    const grew = [...wanting].some((t) => !this.wanting.has(t));
    this.wanting.clear();
    for (const t of wanting) this.wanting.add(t);
    if (grew) this.options.hostsChanged();
  }

  /** The pending invocation a 'D' or 'C' line speaks for: sent to this host, and the line carries its secret. */
  private owned(host: HostEntry, text: string): Pending | undefined {
    const p = this.pending.get(field(text, 0));
    if (!p || p.host !== host || field(text, 1) !== p.secret[0] || field(text, 2) !== p.secret[1]) return undefined;
    return p;
  }

  private done(host: HostEntry, p: Pending, json: string): void {
    this.pending.delete(p.id);
    host.inflight--;
    const loaded = p.loaded!;
    loaded.inflight--;
    loaded.lastUsed = loaded.lastAnswer = host.lastUsed = performance.now();
    // An idle host is what a tenant waiting at the ceiling needs: the pool may give it its place.
    if (host.inflight === 0 && this.wanting.size > 0) this.options.hostsChanged();
    if (p.kind === 'verify') {
      // The host drops a verification Worker and its source by itself once it has answered.
      if (host.loaded.get(p.entry.key) === loaded && loaded.killToken === 0) {
        host.loaded.delete(p.entry.key);
        p.entry.hosts--;
      }
      this.answer(p, decodeVerify(json));
    } else {
      this.answer(p, decodeOutcome(json));
    }
  }

  private answer(p: RunPending, outcome: ExecutionOutcome): void;
  private answer(p: VerifyPending, outcome: VerifyOutcome): void;
  private answer(p: Pending, outcome: ExecutionOutcome | VerifyOutcome): void {
    if (p.answered) return;
    p.answered = true;
    if (p.kind === 'run') p.resolve(outcome as ExecutionOutcome);
    else p.resolve(outcome as VerifyOutcome);
    if (--this.unanswered === 0) {
      clearInterval(this.sweep);
      this.sweep = undefined;
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  /** Fails `p` with `message`: a verification with it as its error, an invocation as a `status` problem with `code`. */
  private fail(p: Pending, status: 502 | 504, code: ExecutionFailureCode, message: string): void {
    if (p.kind === 'verify') this.answer(p, { ok: false, error: message });
    else this.answer(p, failure(status, code, message));
  }

  private readonly expire = (): void => {
    const now = performance.now();
    for (const p of this.pending.values()) if (!p.answered && p.deadline <= now) this.deadlineFor(p);
    if (this.queue.length > 0) for (const p of [...this.queue]) if (p.deadline <= now) this.deadlineFor(p);
  };

  private deadlineFor(p: Pending): void {
    if (p.answered) return;
    if (p.queued) {
      this.queue.splice(this.queue.indexOf(p), 1);
      p.queued = false;
      const tenant = p.entry.tenant;
      if (this.wanting.has(tenant) && !this.queue.some((q) => q.entry.tenant === tenant)) this.wanting.delete(tenant);
      const message = `no executor host became available within ${p.awaitingHost ? Math.max(p.timeoutMs, HOST_WAIT_LIMIT_MS) : p.timeoutMs} ms`;
      return this.fail(p, 504, 'EXECUTION_TIMEOUT', message);
    }
    if (p.kind === 'verify') this.answer(p, { ok: false, error: `loading the module did not finish within ${p.timeoutMs} ms` });
    else this.answer(p, failure(504, 'EXECUTION_TIMEOUT', `the component did not finish within ${p.timeoutMs} ms`));
    // The invocation stays pending until its host reports the Worker gone, so load accounting stays exact.
    if (p.loaded!.killToken === 0) watchKill(p.host!, p.entry.key, p.loaded!, this.options.log);
  }

  /** False when the token is none the server is waiting for. */
  private killAcknowledged(host: HostEntry, token: number): boolean {
    const killed = acknowledgeKill(host, token);
    if (!killed) return false;
    // The host has reported every invocation its Worker held before acknowledging; one still
    // pending never reached the Worker (code of the same tenant read its line off the channel).
    for (const p of this.pending.values()) {
      if (p.host !== host || !killed.has(p.loaded!)) continue;
      this.pending.delete(p.id);
      host.inflight--;
      p.loaded!.inflight--;
      this.fail(p, 502, 'EXECUTOR_CRASHED', 'the invocation never reached its Worker');
    }
    this.drain();
    // The host takes work again; idle, it is what a tenant waiting at the ceiling needs.
    if (host.inflight === 0 && this.wanting.size > 0) this.options.hostsChanged();
    return true;
  }

  private platformCall(host: HostEntry, p: RunPending, json: string): void {
    const id = p.id;
    servePlatformCall(p.request, !p.answered, json, (call, message) => {
      if (this.pending.get(id) !== p) return; // finished, or its host died meanwhile
      let text: string;
      try {
        text = JSON.stringify({ call, ...message });
      } catch {
        text = JSON.stringify({ call, error: 'the platform reply is not JSON-serializable' });
      }
      host.link.send(line('P', [id], text));
    }, this.options.log);
  }
}
