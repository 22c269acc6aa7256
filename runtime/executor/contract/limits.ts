// Limits and timings of the executor, in one place so the server, hosts and Workers agree.

/** Serialized results (or an api.throw body) above this are refused with RESULT_TOO_LARGE (DESIGN §8). */
export const RESULT_LIMIT_BYTES = 1024 * 1024;

/** api.log output kept per invocation; beyond it lines are dropped and a marker is appended. */
export const LOG_LIMIT_LINES = 200;
export const LOG_LIMIT_BYTES = 64 * 1024;
export const LOG_LINE_LIMIT_CHARS = 8 * 1024;

/** Component error messages are cut here; they reach HTTP clients. */
export const ERROR_MESSAGE_LIMIT_CHARS = 2000;

/**
 * The one variable an executor host's environment may hold: the server's own allocator setting
 * (mimalloc's purge delay, `npm start` sets -1), passed on as a number. Not a server secret, and
 * component code never sees it (Workers start with an empty env). Under load it took a host's CPU
 * per trivial invocation from ~21 to ~13 µs (bench/README.md, "Invocation").
 */
export const HOST_ALLOCATOR_VARIABLE = 'MIMALLOC_PURGE_DELAY';

/** Longest line a host may send; a host exceeding it is treated as broken and killed. */
export const HOST_LINE_LIMIT_CHARS = 4 * RESULT_LIMIT_BYTES;

/** The executor clamps deadlines into this range; Endpoint definitions are capped at 60 s by their schema (DESIGN §8). */
export const MIN_TIMEOUT_MS = 1;
export const MAX_TIMEOUT_MS = 600_000;

/** After a deadline the Worker is terminated; if its host does not confirm within this, the host is killed. */
export const WORKER_STOP_GRACE_MS = 1000;

/** A stopping host gets this long to exit after the stop message before SIGKILL. */
export const HOST_STOP_GRACE_MS = 500;

/**
 * How long an invocation may wait for a host of its own to start (its workspace has none yet and
 * every spare is taken); its deadline counts from when it reaches a Worker. A call that waits
 * because its workspace's hosts are busy counts the wait against its deadline instead.
 */
export const HOST_WAIT_LIMIT_MS = 10_000;

/** A starting host must say hello within this. */
export const HOST_START_TIMEOUT_MS = 15_000;

/** verify() loads a module; top-level code that runs longer than this fails the deployment. */
export const VERIFY_TIMEOUT_MS = 10_000;

/**
 * Concurrent invocations one Worker takes; more go to another host or wait in the queue. It also
 * bounds how many invocations fail with 502 when a Worker is terminated for passing a deadline.
 */
export const MAX_CONCURRENT_PER_WORKER = 64;
/**
 * A Worker with calls in flight that has answered none for this long may be stuck (a synchronous
 * loop holds every call queued behind it): new calls of its revision go to another of the
 * tenant's hosts while there is one to take them.
 */
export const WORKER_STALL_MS = 200;

/**
 * Address space added on top of `memoryMb` for the host's limit. Measured here with Bun 1.4.4 (and
 * checked again with 1.4.5): JavaScriptCore reserves its JIT pools up front; under ~2.2 GiB of
 * address space it silently runs without JIT (component code 3–15× slower), between 2.2 and 2.3 GiB
 * Bun aborts at start, and at memoryMb + 2 GiB a memory bomb ends in a catchable RangeError after
 * about memoryMb of heap.
 */
const JIT_HEADROOM_MB = 2048;

/** A host's Worker count follows its memory budget. */
export function maxWorkersPerHost(memoryMb: number): number {
  return Math.max(2, Math.min(32, Math.floor(memoryMb / 128)));
}

/**
 * Address space each Worker a host may hold reserves (~70 MB measured, with room): added to the
 * host's limit, which otherwise left a fresh host (JIT pools included) room for ~5 Workers of 8,
 * and a host loading more revisions at once aborted (SIGILL) or refused to spawn Workers.
 */
const WORKER_ADDRESS_SPACE_MB = 96;

/** The host's address-space limit: its memory budget, the JIT's reservations, and its Workers'. */
export function hostAddressSpaceMb(memoryMb: number): number {
  return memoryMb + JIT_HEADROOM_MB + maxWorkersPerHost(memoryMb) * WORKER_ADDRESS_SPACE_MB;
}

/**
 * Open files per host (RLIMIT_NOFILE). It also bounds the epoll watches one host can hold (about
 * (n/2)² ), a budget the kernel keeps per uid: hosts share theirs, and one host filling it would
 * keep every new host from starting.
 */
export const HOST_FILES_LIMIT = 1024;

/**
 * Share of the machine's pid space (kernel.pid_max) that the threads of all hosts together may
 * take (RLIMIT_NPROC of their shared uid, when the server runs as root). Without it one host's
 * thread bomb filled the pid space, and the server itself aborted when it could not start a thread.
 */
export const HOST_TASKS_SHARE = 1 / 4;

/** Size of each of a host's private temporary directories (/tmp, /var/tmp, /dev/shm), in MiB. */
export const PRIVATE_TMP_MB = 64;

export const DEFAULT_HOSTS = 2;
export const DEFAULT_MAX_HOSTS = 16;
export const DEFAULT_MEMORY_MB = 1024;
export const DEFAULT_WORKER_IDLE_MS = 60_000;
