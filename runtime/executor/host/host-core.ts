// The heart of an executor host: one Worker per loaded revision, created on first use and fed
// batched lines; relays Worker output to the server and turns every Worker death into explicit
// failures for the invocations it held. Runs inside a sandboxed host process, or in the server
// itself under worker isolation.
import { eachLine, field, line, payload } from '../wire/index.ts';
import { failed } from '../worker/index.ts';
import { startComponentWorker } from './threads.ts';

const WORKER_URL = new URL('../worker/component-worker.ts', import.meta.url).href;

type SlotState = 'live' | 'killing' | 'replacing' | 'dropping';

interface Slot {
  rev: number;
  worker: Worker;
  /** Invocations sent to this Worker and not yet answered, with the secret each line about it carries. */
  ids: Map<number, Secret>;
  outbox: string[];
  state: SlotState;
  killTokens: number[];
  verify: boolean;
  closed: boolean;
}

/** The two numbers after an invocation's id in its R/V line, echoed in every D/C line about it. */
type Secret = readonly [number, number];

const secretOf = (text: string): Secret => [field(text, 2), field(text, 3)];

export class HostCore {
  /** The 'L' line of each revision this host may run, sent first to each new Worker for it. */
  private readonly sources = new Map<number, string>();
  /** The Worker currently serving each revision; a terminated one leaves this map at once. */
  private readonly slots = new Map<number, Slot>();
  private readonly byId = new Map<number, Slot>();
  /** Workers terminated but not yet closed: their invocations are reported when they close. */
  private readonly ending = new Set<Slot>();
  private dirty: Slot[] = [];

  /**
   * @param emit sends '\n'-joined lines to the server
   * @param onStop called once the server asked this host to stop
   */
  constructor(private readonly emit: (lines: string) => void, private readonly onStop: () => void) {}

  receive(batch: string): void {
    eachLine(batch, this.handle);
  }

  /** Terminates every Worker without reporting anything (the host is going away). */
  stop(): void {
    for (const slot of this.slots.values()) {
      slot.closed = true;
      slot.worker.terminate();
    }
    this.slots.clear();
    this.byId.clear();
  }

  private readonly handle = (text: string): void => {
    switch (text[0]) {
      case 'R': {
        const id = field(text, 0);
        const secret = secretOf(text);
        const slot = this.slotFor(field(text, 1));
        if (typeof slot === 'string') return this.emit(line('D', [id, ...secret], slot));
        slot.ids.set(id, secret);
        this.byId.set(id, slot);
        this.push(slot, text);
        return;
      }
      case 'P': {
        const slot = this.byId.get(field(text, 0));
        if (slot) this.push(slot, text);
        return;
      }
      case 'L':
        this.sources.set(field(text, 0), line('L', [], payload(text)));
        return;
      case 'V': {
        const id = field(text, 0);
        const secret = secretOf(text);
        const slot = this.slotFor(field(text, 1));
        if (typeof slot === 'string') return this.emit(line('D', [id, ...secret], JSON.stringify({ kind: 'verified', ok: false, error: 'no Worker could be started' })));
        slot.verify = true;
        slot.ids.set(id, secret);
        this.byId.set(id, slot);
        this.push(slot, text);
        return;
      }
      case 'K': {
        const rev = field(text, 0);
        const token = field(text, 1);
        const slot = this.slots.get(rev);
        const ending = slot ? undefined : this.endingFor(rev);
        if (slot) this.terminate(slot, 'killing', token);
        else if (ending) ending.killTokens.push(token); // acknowledged when it has closed
        else this.emit(line('k', [token]));
        return;
      }
      case 'X': {
        const rev = field(text, 0);
        this.sources.delete(rev);
        const slot = this.slots.get(rev);
        if (slot) this.terminate(slot, 'dropping');
        return;
      }
      case 'S':
        this.stop();
        this.onStop();
        return;
    }
  };

  /** The revision's Worker, started if needed; or the failure to report instead. */
  private slotFor(rev: number): Slot | string {
    const existing = this.slots.get(rev);
    if (existing) return existing;
    const source = this.sources.get(rev);
    if (source === undefined) return failed(502, 'EXECUTOR_CRASHED', 'revision not loaded on the executor host');
    let worker: Worker;
    try {
      // No environment (Bun), no permissions at all (Deno): even in worker isolation (threads.ts).
      worker = startComponentWorker(WORKER_URL);
    } catch (err) {
      // Typically the address-space limit: Workers reserve memory up front.
      return failed(502, 'EXECUTOR_RESOURCE_LIMIT', `no Worker could be started: ${err instanceof Error ? err.message : String(err)}`);
    }
    const slot: Slot = { rev, worker, ids: new Map(), outbox: [], state: 'live', killTokens: [], verify: false, closed: false };
    worker.addEventListener('message', (event) => this.fromWorker(slot, (event as MessageEvent).data));
    worker.addEventListener('close', () => this.closed(slot));
    this.slots.set(rev, slot);
    this.push(slot, source);
    return slot;
  }

  private push(slot: Slot, text: string): void {
    if (slot.outbox.push(text) === 1) {
      if (this.dirty.push(slot) === 1) setImmediate(this.flush);
    }
  }

  private readonly flush = (): void => {
    const dirty = this.dirty;
    this.dirty = [];
    for (const slot of dirty) {
      if (!slot.closed && slot.state === 'live') slot.worker.postMessage(slot.outbox.join('\n'));
      slot.outbox = [];
    }
  };

  private fromWorker(slot: Slot, data: unknown): void {
    if (typeof data !== 'string' || slot.closed) return;
    const out: string[] = [];
    let verified = false;
    eachLine(data, (text) => {
      switch (text[0]) {
        case 'D': {
          const id = field(text, 0);
          // Only ids this Worker was given: a component cannot answer for another Worker's invocation.
          if (!slot.ids.delete(id)) return;
          this.byId.delete(id);
          out.push(text);
          verified = slot.verify;
          return;
        }
        case 'C':
          if (slot.ids.has(field(text, 0))) out.push(text);
          return;
        case 'O':
          this.terminate(slot, 'replacing');
          return;
        case 'E':
          // Idle, and its revision failed to load: the next invocation starts a fresh Worker.
          if (slot.ids.size === 0) this.terminate(slot, 'dropping');
          return;
      }
    });
    if (out.length > 0) this.emit(out.join('\n'));
    if (verified) {
      this.sources.delete(slot.rev);
      this.terminate(slot, 'dropping');
    }
  }

  private terminate(slot: Slot, state: SlotState, killToken?: number): void {
    if (killToken !== undefined) slot.killTokens.push(killToken);
    if (slot.closed) {
      this.acknowledgeKills(slot);
      return;
    }
    if (slot.state === 'live' || state === 'killing') slot.state = state;
    if (this.slots.get(slot.rev) === slot) this.slots.delete(slot.rev);
    this.ending.add(slot);
    slot.worker.terminate();
  }

  /**
   * A Worker of the revision still closing (replaced after running out of memory, say): a kill of
   * the revision is acknowledged once it has closed and reported what it held, not before.
   */
  private endingFor(rev: number): Slot | undefined {
    let found: Slot | undefined;
    for (const slot of this.ending) if (slot.rev === rev) found = slot;
    return found;
  }

  private closed(slot: Slot): void {
    if (slot.closed) return;
    slot.closed = true;
    this.ending.delete(slot);
    if (this.slots.get(slot.rev) === slot) this.slots.delete(slot.rev);
    const out: string[] = [];
    if (slot.ids.size > 0) {
      const reply = slot.verify ? verifyFailure(slot.state) : workerLoss(slot.state);
      for (const [id, secret] of slot.ids) {
        this.byId.delete(id);
        out.push(line('D', [id, ...secret], reply));
      }
      slot.ids.clear();
    }
    if (out.length > 0) this.emit(out.join('\n'));
    this.acknowledgeKills(slot);
  }

  private acknowledgeKills(slot: Slot): void {
    if (slot.killTokens.length === 0) return;
    this.emit(slot.killTokens.map((t) => line('k', [t])).join('\n'));
    slot.killTokens = [];
  }
}

/** What the other invocations of a Worker that ended get told, by why it ended. */
function workerLoss(state: SlotState): string {
  switch (state) {
    case 'killing':
      return failed(502, 'EXECUTOR_CRASHED', 'the Worker was stopped because another invocation it was serving passed its deadline');
    case 'replacing':
      return failed(502, 'EXECUTOR_RESOURCE_LIMIT', 'the Worker ran out of memory and was replaced');
    case 'dropping':
      return failed(502, 'EXECUTOR_CRASHED', 'the Worker was stopped');
    case 'live':
      return failed(502, 'EXECUTOR_CRASHED', 'the Worker exited unexpectedly');
  }
}

function verifyFailure(state: SlotState): string {
  const error = state === 'killing' ? 'loading the module did not finish in time' : 'the Worker exited while loading the module';
  return JSON.stringify({ kind: 'verified', ok: false, error });
}
