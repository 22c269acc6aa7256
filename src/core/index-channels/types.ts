// The definition index's channels (DESIGN §9): how a change is announced after its commit, and how
// a runtime hears of it. Three siblings, each in its own file: in-process (npm start: the runtime
// reloads before the control-plane call returns), Redis (scale-out: the snapshot cached under its
// version, the version announced on a channel) and the database version poll (the backstop, and
// the only channel without Redis).
import type { IndexSnapshot } from '../definitions/index.ts';

/** Told after a commit that bumped the index version. */
export interface IndexPublisher {
  published(version: number): Promise<void>;
}

/** What a channel drives on the runtime's side. */
export interface IndexTarget {
  /** The version being served. */
  readonly version: number;
  /** Moves to `version` when newer: from a channel that holds its snapshot, else from the database. */
  toVersion(version: number): Promise<void>;
  /** Announcements may have been lost meanwhile: reload from the database. */
  reload(): Promise<void>;
  /** The database is behind the version served (a stray announcement): serve the database's. */
  replace(): Promise<void>;
}

/** How a runtime hears of new versions. */
export interface IndexSubscriber {
  start(target: IndexTarget): void;
  stop(): void;
  /** The snapshot of `version`, when this channel keeps snapshots (Redis) and has it; else null. */
  snapshot?(version: number): Promise<IndexSnapshot | null>;
}
