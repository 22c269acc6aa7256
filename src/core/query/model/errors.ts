// How the engine reports bad queries: every violation carries a JSON pointer under `/query/…`
// and all of them end up in one 400 INVALID_QUERY problem (DESIGN §3).
import { ProblemError, type Violation } from '../../http/index.ts';
import { LIMITS } from './limits.ts';

/** Thrown inside the engine for one violation; collected by `Issues` into the problem. */
export class QueryIssue extends Error {
  readonly pointer: string;
  constructor(pointer: string, message: string) {
    super(message);
    this.pointer = pointer;
  }
}

/** Throws one violation at `pointer`. */
export function fail(pointer: string, message: string): never {
  throw new QueryIssue(pointer, message);
}

/** Escapes one JSON-pointer token (RFC 6901). */
function token(key: string | number): string {
  if (typeof key === 'number') return String(key);
  return key.includes('~') || key.includes('/') ? key.replace(/~/g, '~0').replace(/\//g, '~1') : key;
}

/** Appends a token to a pointer. */
export function at(pointer: string, key: string | number): string {
  return `${pointer}/${token(key)}`;
}

/**
 * Collects violations section by section, so that one request reports every bad parameter
 * at once, while a section that failed stops at its first violation.
 */
export class Issues {
  private readonly list: Violation[] = [];

  /** Runs `work`; a QueryIssue is recorded and `undefined` returned instead. */
  section<T>(work: () => T): T | undefined {
    try {
      return work();
    } catch (error) {
      if (error instanceof QueryIssue) {
        // Two sections can trip over the same thing (e.g. a groupBy field is also a sort key).
        const repeated = this.list.some((v) => v.pointer === error.pointer && v.message === error.message);
        if (!repeated && this.list.length < LIMITS.violations) this.list.push({ pointer: error.pointer, message: error.message });
        return undefined;
      }
      throw error;
    }
  }

  get empty(): boolean {
    return this.list.length === 0;
  }

  /** Throws the 400 problem when anything was recorded. */
  throwIfAny(): void {
    if (this.list.length === 0) return;
    const first = this.list[0];
    const detail = this.list.length === 1 && first ? first.message : `${this.list.length} query parameters are invalid`;
    throw new ProblemError(400, 'INVALID_QUERY', detail, { errors: [...this.list] });
  }
}

/** Turns a single QueryIssue into the 400 problem (for code paths outside a collector). */
function toProblem(issue: QueryIssue): ProblemError {
  return new ProblemError(400, 'INVALID_QUERY', issue.message, {
    errors: [{ pointer: issue.pointer, message: issue.message }],
  });
}

export const debugForbidden = () =>
  new ProblemError(403, 'DEBUG_FORBIDDEN', 'debug output is only available to instance administrators');
