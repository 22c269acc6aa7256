// The platform on Bun: its own API (Bun.serve, bun:sqlite, Bun.spawn, …) behind types.ts. What it
// returns is Bun's own object (a server, a connection, a subprocess), never a wrapper, so the seam
// costs a call at most. Deno loads this module too (index.ts imports both, to choose without a
// top-level await, which would let a Worker's first messages arrive before its handler is set),
// so bun:sqlite is required when a connection is opened, never imported here.
import type { Database } from 'bun:sqlite';
import type { SocketHandler, Subprocess } from 'bun';
import type { ChannelSocket, Platform, SqliteConnection, SqliteOrm } from './types.ts';

/** Bun.connect accepts an inherited file descriptor, but its overloads do not declare it. */
type FdConnect = (options: { fd: number; socket: SocketHandler<undefined> }) => Promise<ChannelSocket>;

export const bun: Platform = {
  name: 'bun',
  serve: (options) => Bun.serve(options),
  sqlite: {
    open: (file, options) => new (require('bun:sqlite') as typeof import('bun:sqlite')).Database(file, options),
    async orm<S extends Record<string, unknown>>(connection: SqliteConnection, schema: S, migrationsFolder: string): Promise<SqliteOrm<S>> {
      const [{ drizzle }, { migrate }] = await Promise.all([import('drizzle-orm/bun-sqlite'), import('drizzle-orm/bun-sqlite/migrator')]);
      // A connection that this platform's open() made is a bun:sqlite Database.
      const orm = drizzle({ client: connection as Database, schema });
      migrate(orm, { migrationsFolder });
      return orm;
    },
  },
  startWorker: (url) => new Worker(url.href),
  spawn: (argv, { cwd, env }) => Bun.spawn(argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe', 'socket-fd'] }),
  exitCodeOf: (argv) => Bun.spawnSync(argv, { env: {}, stdio: ['ignore', 'ignore', 'ignore'] }).exitCode,
  which: (command) => Bun.which(command),
  // A child that spawn() started is a Bun subprocess with this end of its socketpair at stdio[3].
  connectChild: (child, handlers) => (Bun.connect as unknown as FdConnect)({ fd: (child as Subprocess).stdio[3] as number, socket: handlers }),
  sha256Hex: (text) => Bun.SHA256.hash(text, 'hex'),
  // Read at call time: Deno loads this module too (index.ts), where Bun is not defined.
  crc32: (text) => Bun.hash.crc32(text),
  uuidv7: (at) => Bun.randomUUIDv7('hex', at),
  sleep: (ms) => Bun.sleep(ms),
};
