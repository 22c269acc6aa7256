// The control plane in the bench's own process, built as the test harness builds it (createPlatform
// with a Worker executor), for benches that need its parts (run store, engine, database) beside
// its API: requests go to `app.handle`, or through `serve()` to a real server on a free port.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { loadConfig } from '../../src/core/config.ts';
import { silentLogger } from '../../src/core/log.ts';
import type { Orm } from '../../src/core/db/index.ts';
import { createPlatform, type Platform } from '../../src/platform.ts';
import { createExecutor } from '../../runtime/executor/index.ts';

export const ADMIN_KEY = 'sk-bench-admin-key-0123456789abcdefghijklmn';

/** Where a bench's platform keeps its data: a SQLite file (WAL, the embedded default) or a fresh Postgres schema. */
export interface BenchDatabase {
  readonly name: string;
  /** `sqlite` (a file in a temporary directory) or a Postgres URL. */
  readonly url: 'sqlite' | `postgres://${string}`;
}

/** Calls through `Database.read` / `Database.write` (each a transaction) since the last reset. */
interface QueryCounts {
  reads: number;
  writes: number;
}

export interface BenchPlatform {
  readonly platform: Platform;
  readonly counts: QueryCounts;
  /** Calls the control plane in-process as the bootstrap admin: JSON in, JSON out, any status of 300 or more thrown. */
  call(method: string, path: string, body?: unknown): Promise<any>;
  /** Serves the control plane on a free loopback port; `extra` answers first when it returns a response. */
  serve(extra?: (request: Request) => Response | undefined): { origin: string; stop(): void };
  /** Stops the platform and removes its data (the directory, the Postgres schema). */
  close(): Promise<void>;
}

export async function startInProcessPlatform(database: BenchDatabase): Promise<BenchPlatform> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-platform-'));
  const schema = database.url === 'sqlite' ? undefined : `bench_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const config = loadConfig({
    DATABASE_URL: database.url === 'sqlite' ? `sqlite:${join(dataDir, 'platform.db')}` : database.url,
    PLATFORM_ADMIN_API_KEY: ADMIN_KEY,
    DATA_DIR: dataDir,
    PORT: '0',
    RUNTIME_PORT: '0',
    COMPONENT_ISOLATION: 'worker',
  });
  const executor = await createExecutor({ isolation: 'worker', log: () => {} });
  const platform = await createPlatform(config, silentLogger, { executor, ...(schema ? { postgres: { schema } } : {}) });
  const counts = countQueries(platform);

  const call: BenchPlatform['call'] = async (method, path, body) => {
    const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_KEY}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await platform.app.handle(new Request(`http://localhost${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }));
    const payload: unknown = await response.json();
    if (response.status >= 300) throw new Error(`${method} ${path} → ${response.status} ${JSON.stringify(payload)}`);
    return payload;
  };

  return {
    platform,
    counts,
    call,
    serve(extra) {
      // idleTimeout 0: event streams may stay quiet longer than Bun's default 10 s.
      const server = Bun.serve({ port: 0, hostname: '127.0.0.1', idleTimeout: 0, fetch: (request) => extra?.(request) ?? platform.app.handle(request) });
      return { origin: `http://127.0.0.1:${server.port}`, stop: () => void server.stop(true) };
    },
    async close() {
      await platform.close();
      await executor.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (schema && database.url !== 'sqlite') {
        const sql = postgres(database.url, { max: 1, onnotice: () => {} });
        await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await sql.end();
      }
    },
  };
}

/**
 * Counts the platform's database calls. Every store holds the same Database object, so wrapping
 * its two entry points counts the calls of all of them (bench instrumentation, nothing else).
 */
function countQueries({ db }: Platform): QueryCounts {
  const counts: QueryCounts = { reads: 0, writes: 0 };
  const read = db.read.bind(db);
  const write = db.write.bind(db);
  db.read = <T>(fn: (q: Orm) => Promise<T>) => {
    counts.reads++;
    return read(fn);
  };
  db.write = <T>(fn: (q: Orm) => Promise<T>) => {
    counts.writes++;
    return write(fn);
  };
  return counts;
}
