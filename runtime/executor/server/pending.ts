// An invocation (or a verification) from the call until it is answered, as the dispatcher tracks it.
import type { ExecutionOutcome, ExecutionRequest, VerifyOutcome } from '../contract/index.ts';
import type { HostEntry, Loaded } from './placement.ts';
import type { RevisionEntry } from './revisions.ts';

interface Base {
  id: number;
  /**
   * A secret per invocation, two random 32-bit numbers sent with its R/V line: only lines that
   * echo it may answer it ('D') or speak for it ('C'). Component code can write to its host's
   * channel; without the secret it cannot answer, or call the platform, for another invocation.
   */
  secret: readonly [number, number];
  entry: RevisionEntry;
  host: HostEntry | null;
  loaded: Loaded | null;
  /** performance.now() value after which the invocation has failed its deadline. */
  deadline: number;
  /** Queued for a host of its own to start: the deadline restarts when it is dispatched. */
  awaitingHost: boolean;
  answered: boolean;
  queued: boolean;
  timeoutMs: number;
}

export interface RunPending extends Base {
  kind: 'run';
  request: ExecutionRequest;
  resolve: (outcome: ExecutionOutcome) => void;
}

export interface VerifyPending extends Base {
  kind: 'verify';
  resolve: (outcome: VerifyOutcome) => void;
}

export type Pending = RunPending | VerifyPending;
