// Runs the save-time source checks (./source-check.ts) on a thread of their own, one at a time,
// each within a time limit: a hostile source that makes the parser backtrack (a few hundred bytes
// of nested `<T>(` take Babel's TypeScript plugin 2^n steps) would otherwise hold the event loop,
// and with it both origins of `npm start`. Past the limit the thread is ended and the content is
// refused (422 SOURCE_INVALID); the next check starts a fresh thread.
import { ProblemError, type Violation } from '../core/http/index.ts';
import { platform, type ThreadWorker } from '../core/platform/index.ts';
import type { ComponentContent } from './record.ts';

export type CheckRequest =
  | { kind: 'content'; content: ComponentContent }
  | { kind: 'body'; body: { elements?: unknown; source?: unknown; schema?: unknown }; componentKind: unknown };

/** How long one check may run: a 1 MiB source parses in about 3 s on a slow machine. */
const CHECK_LIMIT_MS = 10_000;

const pointerOf = (content: ComponentContent): string => (content.kind === 'node' ? '/source' : content.kind === 'lowcode' ? '/elements' : '/schema');

export class SourceChecker {
  private worker: ThreadWorker | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly limitMs = CHECK_LIMIT_MS) {}

  /** Throws 422 SOURCE_INVALID listing every problem of the content (or saying it took too long to check). */
  async assertValid(content: ComponentContent): Promise<void> {
    // A thread that failed (the parser gave out on hostile content) refuses the content too: a
    // request must never turn into a 500, and the failure's text is not the caller's business.
    const found = await this.run({ kind: 'content', content }).catch((): Violation[] => [{ pointer: '', message: 'The content could not be checked' }]);
    const errors = found ?? [{ pointer: pointerOf(content), message: `The content took longer than ${this.limitMs / 1000} s to check` }];
    if (errors.length === 0) return;
    const first = errors[0]!;
    throw new ProblemError(422, 'SOURCE_INVALID', first.pointer ? `${first.pointer}: ${first.message}` : first.message, { errors });
  }

  /**
   * Runs a body validation; when it refuses the body, the code the body carries is checked too where
   * it is well formed (lowcode element code, a node source, a json-validator schema), so that one
   * 422 lists every violation (DESIGN §3) rather than the source problems only after the rest is fixed.
   */
  async withSourceViolations<T>(validate: () => T, raw: unknown, componentKind: unknown): Promise<T> {
    try {
      return validate();
    } catch (error) {
      if (!(error instanceof ProblemError) || error.status !== 422 || !error.errors || raw === null || typeof raw !== 'object') throw error;
      // Content the schema refused may not even be checkable: then its violations stand alone.
      const more = ((await this.run({ kind: 'body', body: raw as { elements?: unknown }, componentKind }).catch(() => null)) ?? [])
        .filter((v) => !error.errors!.some((known) => known.pointer === v.pointer));
      if (more.length === 0) throw error;
      throw new ProblemError(422, 'VALIDATION_FAILED', error.message, { errors: [...error.errors, ...more] });
    }
  }

  /** Ends the thread (at shutdown); a later check starts another. */
  close(): void {
    this.worker?.terminate();
    this.worker = null;
  }

  /** The violations, or null when the check ran past its limit. One check at a time. */
  private run(request: CheckRequest): Promise<Violation[] | null> {
    const result = this.queue.then(() => this.runOne(request));
    this.queue = result.catch(() => undefined);
    return result;
  }

  private runOne(request: CheckRequest): Promise<Violation[] | null> {
    const worker = (this.worker ??= this.start());
    return new Promise((resolve, reject) => {
      const end = () => {
        clearTimeout(timer);
        worker.onmessage = null;
        worker.onerror = null;
      };
      const timer = setTimeout(() => {
        end();
        this.close();
        resolve(null);
      }, this.limitMs);
      worker.onmessage = (event: MessageEvent<Violation[]>) => {
        end();
        resolve(event.data);
      };
      worker.onerror = (event) => {
        end();
        this.close();
        reject(new Error(`the source check failed: ${event.message}`));
      };
      worker.postMessage(request);
    });
  }

  private start(): ThreadWorker {
    const worker = platform.startWorker(new URL('./source-check-worker.ts', import.meta.url));
    worker.unref();
    return worker;
  }
}
