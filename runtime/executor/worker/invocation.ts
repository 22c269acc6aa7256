// One invocation inside a Worker: the `api` object component code sees, and what it records
// (results in order, logs, an api.throw) until the outcome is encoded.
import {
  type ComponentInput,
  type CurrentUser,
  type PlatformReply,
  type ResultSelection,
  HOST_LINE_LIMIT_CHARS,
  LOG_LIMIT_BYTES,
  LOG_LIMIT_LINES,
  LOG_LINE_LIMIT_CHARS,
} from '../contract/index.ts';
import { inspect, stringify, utf8Length } from './intrinsics.ts';

/**
 * An api.platform body (as JSON, in UTF-8) above this is refused in the Worker, before anything is
 * sent: it stays under the control plane's own 4 MiB (CONTROL_PLANE_BODY_LIMIT) and leaves room in
 * the host's line (HOST_LINE_LIMIT_CHARS, a host that exceeds it is killed) for the path and the
 * rest of the call, so no legal call can make an oversized line.
 */
export const PLATFORM_BODY_LIMIT_BYTES = HOST_LINE_LIMIT_CHARS - 64 * 1024;
/** Longest api.platform path; as JSON (at most 6 characters for each) it fits the room left above. */
export const PLATFORM_PATH_LIMIT_CHARS = 8 * 1024;
/** Every method the control plane takes is shorter; a longer one cannot be valid. */
const PLATFORM_METHOD_LIMIT_CHARS = 16;

/** What the server sends with each run line. */
export interface RunRequest {
  input: ComponentInput;
  executionId: string;
  oid: string;
  currentUser: CurrentUser;
  /** The visible results the response carries (all when absent). */
  results?: ResultSelection;
}

/** The object handed to component code; identical for lowcode and node components. */
export interface ComponentApi {
  input(): ComponentInput;
  result(name: string, value: unknown, options?: { visible?: boolean }): void;
  throw(status: number, body?: unknown): never;
  currentUser(): CurrentUser;
  log(...args: unknown[]): void;
  platform(method: string, path: string, body?: unknown): Promise<PlatformReply>;
  readonly executionId: string;
  readonly oid: string;
}

/**
 * The api.platform body as the JSON text that is sent, checked against the limit: serialized once
 * here, so a getter or a toJSON cannot make what is sent larger than what was checked. Undefined
 * when JSON can carry nothing (undefined, a function): no body.
 */
function bodyJsonOf(body: unknown): string | undefined {
  const json: string | undefined = stringify(body);
  if (json !== undefined && (json.length > PLATFORM_BODY_LIMIT_BYTES || utf8Length(json, 'utf8') > PLATFORM_BODY_LIMIT_BYTES)) {
    throw new RangeError(`api.platform: the request body exceeds ${PLATFORM_BODY_LIMIT_BYTES} bytes when serialized`);
  }
  return json;
}

/** Thrown by api.throw to unwind the component; recognised by identity, so user errors cannot fake it. */
export class ThrowSignal {
  constructor(readonly status: number, readonly body: unknown) {}
}

type PlatformSender = (call: number, method: string, path: string, bodyJson: string | undefined) => void;

const ENDED = 'api.platform: the invocation this api belongs to has ended';

export class Invocation {
  /** Insertion-ordered results; a name set again keeps its place and takes the new value. */
  readonly results = new Map<string, { value: unknown; visible: boolean }>();
  /** The `results` argument of lowcode elements: results so far by name. */
  readonly resultsByName: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  readonly logs: string[] = [];
  thrown: ThrowSignal | undefined;
  /** Answered: an api kept past it (in module state, say) can make no more platform calls. */
  private ended = false;
  private logBytes = 0;
  private logsTruncated = false;
  private nextCall = 1;
  /** Pending api.platform calls; made on the first one (most components never call). */
  private calls: Map<number, { resolve: (r: PlatformReply) => void; reject: (e: Error) => void }> | undefined;
  readonly api: ComponentApi;

  /**
   * @param hidden results the revision declares `visible: false`; api.result's own option wins
   */
  constructor(readonly request: RunRequest, private readonly hidden: ReadonlySet<string>, sendPlatform: PlatformSender) {
    const self = this;
    this.api = Object.freeze({
      input: () => request.input,
      result(name: string, value: unknown, options?: { visible?: boolean }) {
        if (typeof name !== 'string' || name.length === 0) throw new TypeError('api.result: name must be a non-empty string');
        self.setResult(name, value, typeof options?.visible === 'boolean' ? options.visible : self.visibleByDefault(name));
      },
      throw(status: number, body?: unknown): never {
        // 1xx are not final responses: they cannot answer an invocation.
        if (!Number.isInteger(status) || status < 200 || status > 599) {
          throw new TypeError('api.throw: status must be an integer HTTP status between 200 and 599');
        }
        // The first api.throw decides the outcome even if the component catches the signal.
        self.thrown ??= new ThrowSignal(status, body);
        throw self.thrown;
      },
      currentUser: () => ({ ...request.currentUser, roles: [...request.currentUser.roles] }),
      log: (...args: unknown[]) => self.log(args),
      platform(method: string, path: string, body?: unknown): Promise<PlatformReply> {
        if (self.ended) return Promise.reject(new Error(ENDED));
        if (typeof method !== 'string' || typeof path !== 'string') {
          return Promise.reject(new TypeError('api.platform(method, path, body?): method and path must be strings'));
        }
        if (method.length > PLATFORM_METHOD_LIMIT_CHARS) return Promise.reject(new TypeError('api.platform: unsupported method'));
        if (path.length > PLATFORM_PATH_LIMIT_CHARS) {
          return Promise.reject(new RangeError(`api.platform: the path exceeds ${PLATFORM_PATH_LIMIT_CHARS} characters`));
        }
        let bodyJson: string | undefined;
        try {
          bodyJson = bodyJsonOf(body);
        } catch (err) {
          // a body that JSON cannot represent, or one over the limit
          return Promise.reject(err);
        }
        const call = self.nextCall++;
        return new Promise<PlatformReply>((resolve, reject) => {
          (self.calls ??= new Map()).set(call, { resolve, reject });
          try {
            sendPlatform(call, method, path, bodyJson);
          } catch (err) {
            self.calls!.delete(call);
            reject(err);
          }
        });
      },
      executionId: request.executionId,
      oid: request.oid,
    });
  }

  /** Whether a result is visible when nothing says otherwise: unless the revision declares it hidden. */
  visibleByDefault(name: string): boolean {
    return !this.hidden.has(name);
  }

  setResult(name: string, value: unknown, visible: boolean): void {
    this.results.set(name, { value, visible });
    this.resultsByName[name] = value;
  }

  /** The invocation is answered: platform calls still pending, and any made later, fail at once. */
  end(): void {
    this.ended = true;
    if (!this.calls) return;
    for (const pending of this.calls.values()) pending.reject(new Error(ENDED));
    this.calls.clear();
  }

  /** Settles a pending api.platform call with the server's reply. */
  platformReply(call: number, reply: { status?: unknown; body?: unknown; error?: unknown }): void {
    const pending = this.calls?.get(call);
    if (!pending) return;
    this.calls!.delete(call);
    if (typeof reply.error === 'string') pending.reject(new Error(reply.error));
    else pending.resolve({ status: typeof reply.status === 'number' ? reply.status : 502, body: reply.body });
  }

  private log(args: unknown[]): void {
    if (this.logsTruncated) return;
    let text = args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' ');
    if (text.length > LOG_LINE_LIMIT_CHARS) text = `${text.slice(0, LOG_LINE_LIMIT_CHARS)}…`;
    if (this.logs.length >= LOG_LIMIT_LINES || this.logBytes + text.length > LOG_LIMIT_BYTES) {
      this.logsTruncated = true;
      this.logs.push('[further log lines dropped: log limit reached]');
      return;
    }
    this.logBytes += text.length;
    this.logs.push(text);
  }
}
