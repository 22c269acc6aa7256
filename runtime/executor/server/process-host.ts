// One sandboxed executor host process: spawned with the sandbox plan's command line, an empty
// environment and a socketpair on its fd 3; ready once it says hello. Its stdout/stderr go to the
// server log (rate-limited); stderr also tells whether a crash was an out-of-memory.
import { readFileSync } from 'node:fs';
import type { HostHello } from '../host/index.ts';
import { HOST_LINE_LIMIT_CHARS, HOST_START_TIMEOUT_MS, HOST_STOP_GRACE_MS } from '../contract/index.ts';
import { BatchWriter, eachLine, line, payload, lineReader } from '../wire/index.ts';
import type { HostEvents, HostLink } from './host-link.ts';
import { pumpOutput } from './host-output.ts';
import { platform } from '../../../src/core/platform/index.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function spawnProcessHost(
  argv: string[],
  name: string,
  events: HostEvents,
  log: (line: string) => void,
): Promise<HostLink> {
  const proc = platform.spawn(argv, { cwd: '/', env: {} });
  const output = pumpOutput(proc, name, log);
  const started = Promise.withResolvers<HostHello>();
  let hello: HostHello | undefined;
  let gone = false;
  let writer: BatchWriter | undefined;

  /** The sandboxed Bun itself when it runs under `unshare --fork`: pid 1 of its namespace. */
  const innerPid = (): number | undefined => {
    try {
      const child = Number(readFileSync(`/proc/${proc.pid}/task/${proc.pid}/children`, 'utf8').trim().split(' ')[0]);
      const stat = readFileSync(`/proc/${child}/stat`, 'utf8');
      // Check the parent too, so a recycled pid is never killed.
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === proc.pid ? child : undefined;
    } catch {
      return undefined;
    }
  };

  const hardKill = (): void => {
    const inner = innerPid();
    if (inner !== undefined) {
      try {
        process.kill(inner, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    proc.kill('SIGKILL');
  };

  /** Runs once however the host ends: channel closed, process exited, or we killed it. */
  const finish = async (reason: string): Promise<void> => {
    if (gone) return;
    gone = true;
    writer?.close();
    started.reject(new Error(`executor host ${name} did not start: ${reason}`));
    // Without its channel a host is useless; make sure nothing of it keeps running.
    if (!(await Promise.race([proc.exited.then(() => true), sleep(HOST_STOP_GRACE_MS).then(() => false)]))) hardKill();
    await proc.exited;
    await Promise.race([output.done, sleep(1000)]);
    const how = proc.signalCode ? `signal ${proc.signalCode}` : `exit code ${proc.exitCode}`;
    events.onExit({ reason: `${reason}, ${how}`, outOfMemory: output.sawOutOfMemory() });
  };
  void proc.exited.then(() => finish('process exited'));
  started.promise.catch(() => {}); // observed below; only the first settlement counts

  const read = lineReader(
    HOST_LINE_LIMIT_CHARS,
    (batch) => {
      if (hello) return events.onLines(batch);
      eachLine(batch, (text) => {
        if (hello) return events.onLines(text);
        if (text[0] !== 'H') return;
        try {
          hello = JSON.parse(payload(text)) as HostHello;
          if (hello.syscallFilterError) log(`executor: ${name} runs without its syscall filter: ${hello.syscallFilterError}`);
          started.resolve(hello);
        } catch {
          hardKill();
          void finish('malformed hello');
        }
      });
    },
    () => {
      hardKill();
      void finish('protocol violation: oversized line');
    },
  );

  const socket = await platform.connectChild(proc, {
    data: (_s, chunk) => read(chunk),
    drain: () => writer?.drain(),
    close: () => void finish('channel closed'),
    end: () => void finish('channel closed'),
    error: () => void finish('channel error'),
  });
  writer = new BatchWriter(socket);

  const timer = setTimeout(() => {
    hardKill();
    void finish(`no hello within ${HOST_START_TIMEOUT_MS} ms`);
  }, HOST_START_TIMEOUT_MS);
  const greeting = await started.promise.finally(() => clearTimeout(timer));

  const link: HostLink = {
    name,
    hello: greeting,
    send: (text) => writer?.write(text),
    kill: (reason) => {
      hardKill();
      void finish(reason);
    },
    stop: async () => {
      if (!gone) {
        writer?.write(line('S', []));
        await Promise.race([proc.exited, sleep(HOST_STOP_GRACE_MS)]);
        if (!gone) link.kill('stopped');
      }
      await proc.exited;
    },
  };
  return link;
}
