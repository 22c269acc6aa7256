// A private redis-server for suites that kill connections and restart Redis; the machine's shared
// Redis is never touched. In-memory only (`--save "" --appendonly no`), so a restart loses everything.
import { Redis } from 'ioredis';
import { collect } from './child-output.ts';
import { freePort } from './ports.ts';

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Whether a server process of ours is running. */
  readonly running: boolean;
  /** Starts the server on `port` (again) and waits until it answers PING. */
  start(): Promise<void>;
  /** SHUTDOWN NOSAVE, killed if it does not exit promptly. */
  stop(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing is answered (a hung server), until resume(). */
  pause(): void;
  resume(): void;
  /** One command on a short-lived connection of its own. */
  command(...args: (string | number)[]): Promise<unknown>;
}

/** Null when there is no `redis-server` binary on this machine. */
export function redisServerBinary(): string | null {
  return Bun.which('redis-server');
}

export async function startRedisServer(): Promise<RedisServer> {
  const binary = redisServerBinary();
  if (!binary) throw new Error('redis-server is not installed');
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: Bun.Subprocess<'ignore', 'pipe', 'pipe'> | null = null;
  let log = '';
  // Last resort when the test process dies before afterAll: never leave a server behind.
  process.once('exit', () => child?.kill('SIGKILL'));

  const command = async (...args: (string | number)[]): Promise<unknown> => {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
    client.on('error', () => {}); // the rejection below carries the error
    try {
      await client.connect();
      const [name, ...rest] = args;
      return await client.call(String(name), ...rest.map(String));
    } finally {
      client.disconnect();
    }
  };

  const server: RedisServer = {
    port,
    url,
    get running() {
      return child !== null && child.exitCode === null && child.signalCode === null;
    },
    async start() {
      if (server.running) throw new Error('redis-server is already running');
      log = '';
      child = Bun.spawn([binary, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
        stdin: 'ignore',
        stdout: 'pipe',
        stderr: 'pipe',
      });
      void collect(child.stdout, (text) => (log += text));
      void collect(child.stderr, (text) => (log += text));
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          if ((await command('PING')) === 'PONG') return;
        } catch {
          // not listening yet
        }
        if (!server.running) throw new Error(`redis-server exited during start:\n${log}`);
        if (Date.now() > deadline) throw new Error(`redis-server did not answer PING within 10 s:\n${log}`);
        await Bun.sleep(50);
      }
    },
    async stop() {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      await command('SHUTDOWN', 'NOSAVE').catch(() => undefined); // the connection drops as it exits
      const exited = await Promise.race([running.exited.then(() => true), Bun.sleep(5000).then(() => false)]);
      if (!exited) {
        running.kill('SIGKILL');
        await running.exited;
      }
    },
    pause() {
      if (!server.running) throw new Error('redis-server is not running');
      child!.kill('SIGSTOP');
    },
    resume() {
      if (server.running) child!.kill('SIGCONT');
    },
    command,
  };
  try {
    await server.start();
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
