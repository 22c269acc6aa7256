// The platform on Bun: its own API (Bun.serve, bun:sqlite, Bun.spawn, …) behind types.ts. What it
// returns is Bun's own object (a server, a connection, a subprocess), never a wrapper, so the seam
// costs a call at most.
import { Database } from 'bun:sqlite';
import type { SocketHandler } from 'bun';
import type { ChannelSocket, Platform, SqliteConnection, SqliteOrm } from './types.ts';

/** Bun.connect accepts an inherited file descriptor, but its overloads do not declare it. */
type FdConnect = (options: { fd: number; socket: SocketHandler<undefined> }) => Promise<ChannelSocket>;

export const bun: Platform = {
  serve: (options) => Bun.serve(options),
  sqlite: {
    open: (file, options) => new Database(file, options),
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
  connectFd: (fd, handlers) => (Bun.connect as unknown as FdConnect)({ fd, socket: handlers }),
  sha256Hex: (text) => Bun.SHA256.hash(text, 'hex'),
  crc32: Bun.hash.crc32,
  uuidv7: (at) => Bun.randomUUIDv7('hex', at),
  sleep: (ms) => Bun.sleep(ms),
};
