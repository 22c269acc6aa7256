// Serves one api.platform call from component code with the invocation's server-side callback
// (the runtime makes it a control-plane call as the execution identity). What arrives is untrusted
// JSON from a host; what goes back is either {status, body} or {error} for the component.
import type { ExecutionRequest } from '../contract/index.ts';

export function servePlatformCall(
  request: ExecutionRequest,
  stillRunning: boolean,
  json: string,
  reply: (call: number, message: { status: number; body: unknown } | { error: string }) => void,
  log: (line: string) => void,
): void {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return;
  }
  if (typeof raw !== 'object' || raw === null) return;
  const { call, method, path, body } = raw as { call?: unknown; method?: unknown; path?: unknown; body?: unknown };
  if (typeof call !== 'number') return;
  if (!stillRunning) return reply(call, { error: 'the invocation has already ended' });
  const platform = request.platform;
  if (!platform) return reply(call, { error: 'api.platform is not available for this invocation' });
  if (typeof method !== 'string' || typeof path !== 'string') return reply(call, { error: 'method and path must be strings' });
  platform({ method, path, body }).then(
    (r) => reply(call, { status: r.status, body: r.body }),
    (err: unknown) => {
      log(`executor: api.platform ${method} ${path} failed: ${err instanceof Error ? err.message : String(err)}`);
      reply(call, { error: 'the platform call failed' });
    },
  );
}
