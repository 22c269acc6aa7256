// Public types of the executor: what the runtime hands in for one invocation and what it gets back.
import type { ProblemCode } from '../../../src/core/http/index.ts';

/** What `api.input()` returns inside component code. */
export interface ComponentInput {
  method: string;
  path: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  /** Already sanitized by the runtime: no authorization, cookies or platform-internal headers. */
  headers: Record<string, string>;
  inputs: Record<string, unknown>;
  agentTool?: { entrypoint: string; inputs: Record<string, unknown>; args: unknown };
}

/** What `api.currentUser()` returns. */
export interface CurrentUser {
  id: string;
  kind: 'USER' | 'SERVICE_ACCOUNT' | 'SYSTEM';
  name: string;
  roles: string[];
}

/**
 * An immutable component revision; `id` identifies its content (Workers are reused per id).
 * `tenant` says whose code it is (the platform uses the component's workspace): code of different
 * tenants never runs in the same executor host process.
 */
export type CodeRevision =
  | { id: string; tenant: string; kind: 'lowcode'; elements: { name: string; code: string; visible: boolean }[] }
  | {
      id: string;
      tenant: string;
      kind: 'node';
      /** The module as submitted, TypeScript or JavaScript: the Worker transpiles it, inside the sandbox. */
      source: string;
      /** Results the revision declares `visible: false`: hidden unless api.result says otherwise. */
      hidden?: string[];
    };

export interface PlatformCall {
  method: string;
  path: string;
  body?: unknown;
}

export interface PlatformReply {
  status: number;
  body: unknown;
}

export interface ExecutionRequest {
  revision: CodeRevision;
  input: ComponentInput;
  executionId: string;
  oid: string;
  currentUser: CurrentUser;
  /**
   * The body's JSON text as received, when the caller has it (it must be valid JSON and equal to
   * `input.body`): sent to the Worker as is instead of serializing `input.body` again.
   */
  bodyJson?: string;
  /**
   * `input.inputs` as JSON text, when the caller keeps it made (it must equal
   * `JSON.stringify(input.inputs)`): an Endpoint's template inputs are the same for every call, so
   * they are serialized once rather than per call.
   */
  inputsJson?: string;
  /**
   * Which visible results the response will carry: one (`popResult`), none (`noResult`), or all
   * when absent (the result map, the legacy envelope). Only those leave the Worker, and only they
   * count towards the 1 MiB result limit.
   */
  results?: ResultSelection;
  /** Deadline for this invocation, counted from the call to `execute` (time spent queued included). */
  timeoutMs: number;
  /** Aborting it ends the invocation as its deadline would: answered at once, its Worker terminated. */
  signal?: AbortSignal;
  /** Serves api.platform(method, path, body) on the server side, as the execution identity. */
  platform?: (call: PlatformCall) => Promise<PlatformReply>;
}

export type ResultSelection = { only: string } | 'none';

export interface ComponentResult {
  name: string;
  /** The value as the Worker serialized it (valid JSON text); absent when the value was `undefined`. */
  json?: string;
  visible: boolean;
}

/** The problem codes an execution can fail with; a subset of `ProblemCode`, so switches stay exhaustive. */
export type ExecutionFailureCode = Extract<
  ProblemCode,
  'COMPONENT_ERROR' | 'EXECUTOR_CRASHED' | 'EXECUTOR_RESOURCE_LIMIT' | 'RESULT_TOO_LARGE' | 'EXECUTION_TIMEOUT'
>;

export type ExecutionOutcome =
  | { kind: 'results'; results: ComponentResult[]; logs: string[] }
  | { kind: 'thrown'; status: number; /** The api.throw body as JSON text; absent without a body. */ bodyJson?: string; logs: string[] }
  | { kind: 'failed'; status: 500 | 502 | 504; code: ExecutionFailureCode; message: string };

export type VerifyOutcome = { ok: true } | { ok: false; error: string };

/** Sandbox layers; each is reported true only when a running host observed it on itself. */
export interface SandboxLayers {
  emptyEnv: boolean;
  unprivilegedUser: boolean;
  pidNamespace: boolean;
  networkNamespace: boolean;
  addressSpaceLimit: boolean;
  noNewPrivileges: boolean;
  /** seccomp: no execve, no new processes, no ptrace/namespaces/mount/bpf (host/syscall-filter.ts). */
  syscallFilter: boolean;
  /** SysV IPC and POSIX message queues of the host's own. */
  ipcNamespace: boolean;
  /** Every directory anyone may write (/tmp, /var/tmp, /dev/shm, …) is a small tmpfs of the host's own. */
  privateTmp: boolean;
}

/**
 * What component Workers run on: on Deno with its permissions denying everything (`none`: no env,
 * read, write, net, run, ffi, sys); Bun has no permission model (`unrestricted`, confined by the
 * sandbox layers around the host).
 */
export interface ComponentWorkers {
  runtime: 'bun' | 'deno';
  permissions: 'none' | 'unrestricted';
}

export interface ExecutorStatus {
  isolation: 'process' | 'worker';
  layers: SandboxLayers;
  /** As the hosts report it; `none` only when every host says so. */
  workers: ComponentWorkers;
  /** Hosts that take work now. */
  hostsReady: number;
  /** Hosts running or starting (process isolation: spares plus hosts bound to a tenant). */
  hostsTotal: number;
  /** Hosts bound to no tenant yet, ready for a component whose tenant has no host. */
  hostsSpare: number;
  /** Hosts taking work that have invocations or checks in flight now. */
  hostsBusy: number;
  /** Hosts that stopped without being asked to (crashed, killed past a deadline) since the start; each was replaced. */
  hostsReplaced: number;
  /** Component Workers running in the hosts (one per revision loaded on a host). */
  workersRunning: number;
}

export interface Executor {
  execute(request: ExecutionRequest): Promise<ExecutionOutcome>;
  /** Deployment check: load a revision in the sandbox; a node module's default export must be a function. */
  verify(revision: CodeRevision): Promise<VerifyOutcome>;
  status(): ExecutorStatus;
  /** Refuses new work, lets in-flight invocations finish (each is bounded by its deadline), then stops the hosts. */
  close(): Promise<void>;
}

export interface ExecutorOptions {
  isolation: 'process' | 'worker';
  /** Spare host processes kept warm for tenants without a host (process isolation). Default 2. */
  hosts?: number;
  /** Host processes running at most, spares and tenants' hosts together. Default 16. */
  maxHosts?: number;
  /** Hosts one tenant may hold at once. Default: the machine's core count. */
  hostsPerTenant?: number;
  /** Address-space limit of each host in MiB (process isolation). Default 1024. */
  memoryMb?: number;
  /** A revision's Worker idle this long is stopped (its host keeps nothing of it). Default 60000. */
  workerIdleMs?: number;
  /** How long verify() lets a module's top-level code run. Default 10000. */
  verifyTimeoutMs?: number;
  /** Always run hosts from a private copy of Bun and the host program, even when the checkout is readable. */
  privateCopy?: boolean;
  /** Hosts install their seccomp filter (default true); false only for tests that need a component to start a process. */
  syscallFilter?: boolean;
  log?: (line: string) => void;
}
