// A standalone endpoint runtime (`bun src/main.ts runtime`) as a child process, configured only by its
// environment, as a scale-out deployment starts it. Its log is kept for failure messages.
import { join } from 'node:path';
import { collect } from './child-output.ts';

const ROOT = join(import.meta.dir, '..', '..');

export interface RuntimeProcess {
  readonly url: string;
  /** Everything the process wrote to stderr/stdout so far. */
  log(): string;
  /** SIGTERM (graceful drain), SIGKILL if it has not exited within 10 s. */
  stop(): Promise<void>;
}

/** Starts the runtime on a port of its choosing and waits until /readyz answers 200. */
export async function startRuntimeProcess(env: Record<string, string>): Promise<RuntimeProcess> {
  let output = '';
  const child = Bun.spawn([process.execPath, 'src/main.ts', 'runtime'], {
    cwd: ROOT,
    // Only what we pass: the test's own environment must not leak into the runtime's configuration.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', RUNTIME_PORT: '0', LOG_LEVEL: 'info', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const killHard = () => child.kill('SIGKILL');
  process.once('exit', killHard);
  const exitedEarly = child.exited.then((code) => {
    throw new Error(`the runtime process exited with ${code}:\n${output}`);
  });
  exitedEarly.catch(() => {});

  let announce: (port: number) => void = () => {};
  const listening = new Promise<number>((resolve) => (announce = resolve));
  const sink = (text: string) => {
    output += text;
    const port = /endpoint runtime listening on https?:\/\/[^\s]+:(\d+)/.exec(output)?.[1];
    if (port) announce(Number(port));
  };
  void collect(child.stdout, sink);
  void collect(child.stderr, sink);

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(10_000).then(() => false)]);
      if (!exited) {
        child.kill('SIGKILL');
        await child.exited;
      }
    }
    process.off('exit', killHard);
  };

  try {
    const port = await Promise.race([listening, exitedEarly, Bun.sleep(30_000).then(() => Promise.reject(new Error(`the runtime did not listen within 30 s:\n${output}`)))]);
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const ready = await fetch(`${url}/readyz`).then((r) => r.status === 200, () => false);
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`the runtime was not ready within 30 s:\n${output}`);
      await Promise.race([Bun.sleep(100), exitedEarly]);
    }
    return { url, log: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
