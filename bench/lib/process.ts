// Child processes for HTTP benches: servers started as their own process (so the load generator
// and the bench driver never share their event loop), and the CPU time a process tree used.

export interface ChildServer {
  pid: number;
  /** What the server printed after `READY ` (JSON). */
  ready: Record<string, unknown>;
  stop(): Promise<void>;
}

/**
 * Spawns `bun <args>` and waits for a line `READY <json>` on its stdout (its stderr to `stderrFile`,
 * else this process's). stop() sends SIGTERM,
 * waits up to `graceMs`, then SIGKILLs. The child's stdin is a pipe the child may watch: it
 * closes when this process dies, however it dies.
 */
export async function startServer(args: string[], env: Record<string, string | undefined> = process.env, graceMs = 10_000, stderrFile?: string): Promise<ChildServer> {
  const child = Bun.spawn([process.execPath, ...args], { stdin: 'pipe', stdout: 'pipe', stderr: stderrFile ? Bun.file(stderrFile) : 'inherit', env });
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let line: RegExpExecArray | null = null;
  while (!(line = /^READY (.*)$/m.exec(text))) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server ${args.join(' ')} exited before it was ready (code ${await child.exited})`);
    text += decoder.decode(value, { stream: true });
  }
  // Keep draining stdout so the child never blocks on a full pipe.
  void (async () => {
    for (;;) if ((await reader.read()).done) return;
  })().catch(() => {});
  return {
    pid: child.pid,
    ready: JSON.parse(line[1]!) as Record<string, unknown>,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await child.exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The environment `npm start` gives the platform: the `NAME=${NAME:-default}` assignments that
 * prefix package.json's start script (allocator settings), resolved against `env` as the shell
 * would. A bench that starts the platform itself passes these, so it measures what users run.
 */
export function npmStartEnv(env: Record<string, string | undefined> = process.env): Record<string, string> {
  const scripts = (require('../../package.json') as { scripts: Record<string, string> }).scripts;
  const out: Record<string, string> = {};
  for (const m of scripts.start!.matchAll(/(?:^|\s)([A-Z_][A-Z0-9_]*)=\$\{\1:-([^}]*)\}(?=\s)/g)) out[m[1]!] = env[m[1]!] || m[2]!;
  return out;
}

/** CPU time in µs (user + system) used so far by a process and all its live descendants (Linux /proc, 100 Hz ticks). */
export async function treeCpuMicros(root: number): Promise<number> {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const name of new Bun.Glob('[0-9]*').scanSync({ cwd: '/proc', onlyFiles: false })) {
    try {
      const text = await Bun.file(`/proc/${name}/stat`).text();
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(name), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      // exited while scanning
    }
  }
  let total = 0;
  const todo = [root];
  while (todo.length > 0) {
    const pid = todo.pop()!;
    total += stats.get(pid)?.ticks ?? 0;
    for (const [child, st] of stats) if (st.ppid === pid) todo.push(child);
  }
  return total * 10_000;
}

/**
 * Waits until a process tree is idle (under `idleShare` of one core over `windowMs`), up to
 * `maxMs`: a server may keep working after the load stops (batched writes, JIT, GC), and that
 * work must not land on the next measurement's clock. Returns the ms waited.
 */
export async function settle(pid: number, o: { windowMs?: number; idleShare?: number; maxMs?: number } = {}): Promise<number> {
  const { windowMs = 300, idleShare = 0.05, maxMs = 30_000 } = o;
  const started = performance.now();
  let before = await treeCpuMicros(pid);
  while (performance.now() - started < maxMs) {
    await Bun.sleep(windowMs);
    const now = await treeCpuMicros(pid);
    if (now - before <= windowMs * 1000 * idleShare) break;
    before = now;
  }
  return performance.now() - started;
}

/** The 1-minute load average, for the record printed with the figures. */
export async function loadAverage(): Promise<string> {
  try {
    return (await Bun.file('/proc/loadavg').text()).split(' ').slice(0, 3).join(' ');
  } catch {
    return '?';
  }
}
