// How an entry point that could not start ends: a configuration error with its message (exit 2);
// anything else (a port in use, a database that refuses) with the reason (exit 1), after undoing
// what the start had already set up (executor hosts and their private copy of Bun under /tmp).
// The process must end either way: the process guards would otherwise keep alive a process that
// serves nothing.
import { ConfigError, createLogger, type Logger } from '../core/index.ts';
import { platform } from '../core/platform/index.ts';

/** How long undoing a failed start may take before the process exits anyway. */
const CLEANUP_LIMIT_MS = 5_000;

/**
 * Logs why the start failed (a JSON line like every other; `log` is the process's logger when the
 * configuration got that far) and ends the process.
 */
export async function failStart(error: unknown, undo: (() => Promise<void>) | undefined, log: Logger = createLogger('info', 'start')): Promise<never> {
  // A configuration error found once the start is under way (REDIS_URL's database) has set up
  // executor hosts by then, like any other failure.
  if (error instanceof ConfigError) log.error(error.message);
  else log.error(`start failed: ${error instanceof Error ? error.message : String(error)}`, error);
  if (undo) await Promise.race([undo().catch(() => {}), platform.sleep(CLEANUP_LIMIT_MS)]);
  process.exit(error instanceof ConfigError ? 2 : 1);
}
