// The in-process channel (npm start): publication calls the runtime's listener directly, so the
// runtime serves a change before the control-plane call that made it returns.
import type { Logger } from '../index.ts';
import type { IndexPublisher, IndexSubscriber, IndexTarget } from './types.ts';

type Listener = (version: number) => Promise<void>;

export class InProcessChannel implements IndexPublisher {
  private readonly listeners = new Set<Listener>();

  constructor(private readonly log: Logger) {}

  /** Calls `listener` with every version published from now on; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async published(version: number): Promise<void> {
    await Promise.all(
      [...this.listeners].map((listener) =>
        listener(version).catch((error: unknown) => this.log.warn(`index listener failed for version ${version}`, { error: String(error) })),
      ),
    );
  }

  /** The runtime's side of the channel. */
  subscriber(): IndexSubscriber {
    let unsubscribe: (() => void) | null = null;
    return {
      start: (target: IndexTarget) => {
        unsubscribe = this.subscribe((version) => target.toVersion(version));
      },
      stop: () => unsubscribe?.(),
    };
  }
}

/** Tells every publisher, in parallel. */
export class CompositePublisher implements IndexPublisher {
  constructor(private readonly publishers: IndexPublisher[]) {}

  async published(version: number): Promise<void> {
    await Promise.all(this.publishers.map((p) => p.published(version)));
  }
}

export const noPublisher: IndexPublisher = { published: async () => {} };
