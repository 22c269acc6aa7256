// Upgrading a database made by an earlier release keeps its rows. Migration 0003 gave the audit
// table an insertion-order storage key (`seq`) in place of the uuid primary key: audit rows
// written before it must survive with their ids, in time order.
import { afterAll, describe, expect, test } from 'bun:test';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database as SqliteClient } from 'bun:sqlite';
import { drizzle as sqliteDrizzle } from 'drizzle-orm/bun-sqlite';
import { migrate as sqliteMigrate } from 'drizzle-orm/bun-sqlite/migrator';
import { drizzle as pgDrizzle } from 'drizzle-orm/postgres-js';
import { migrate as pgMigrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { databaseCases, dropPostgresSchema, POSTGRES_URL } from '../../helpers/databases.ts';

const MIGRATIONS = join(import.meta.dir, '..', '..', '..', 'src', 'core', 'db', 'migrations');
const BEFORE_SEQ = 3; // migrations 0000–0002

/** A copy of a dialect's migrations folder whose journal stops after the first `count` entries. */
function firstMigrations(dialect: 'sqlite' | 'pg', count: number): string {
  const dir = mkdtempSync(join(tmpdir(), `migrations-${dialect}-`));
  cpSync(join(MIGRATIONS, dialect), dir, { recursive: true });
  const journalFile = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: unknown[] };
  journal.entries = journal.entries.slice(0, count);
  writeFileSync(journalFile, JSON.stringify(journal));
  return dir;
}

const rows = [
  // Inserted out of time order: seq must follow `at`, not insertion.
  { id: crypto.randomUUID(), at: 1_700_000_002_000, kind: 'invocation', action: 'endpoint.invoke', resourceId: crypto.randomUUID() },
  { id: crypto.randomUUID(), at: 1_700_000_001_000, kind: 'change', action: 'endpoint.create', resourceId: crypto.randomUUID() },
];

const temporary: string[] = [];
afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

describe.each(databaseCases())('upgrade to the seq-keyed audit table on $name', (c) => {
  afterAll(() => dropPostgresSchema(c.postgresSchema));

  test('audit rows written before migration 0003 keep their ids and kinds, each with its own seq (in time order on SQLite)', async () => {
    const old = firstMigrations(c.name === 'sqlite' ? 'sqlite' : 'pg', BEFORE_SEQ);
    temporary.push(old);
    let upgraded: { seq: number; id: string; at: number; kind: string }[];
    if (c.name === 'sqlite') {
      const client = new SqliteClient(':memory:', { strict: true });
      const orm = sqliteDrizzle({ client });
      sqliteMigrate(orm, { migrationsFolder: old });
      const insert = client.prepare(`INSERT INTO audit (id, at, kind, action, resource_type, resource_id) VALUES ($id, $at, $kind, $action, 'endpoint', $resourceId)`);
      for (const r of rows) insert.run(r);
      sqliteMigrate(orm, { migrationsFolder: join(MIGRATIONS, 'sqlite') });
      upgraded = client.query('SELECT seq, id, at, kind FROM audit ORDER BY seq').all() as typeof upgraded;
      // New rows append after the old ones.
      client.prepare(`INSERT INTO audit (id, at, kind, action, resource_type) VALUES ($id, 1, 'change', 'x', 'endpoint')`).run({ id: crypto.randomUUID() });
      expect((client.query('SELECT max(seq) AS m FROM audit').get() as { m: number }).m).toBe(upgraded[1]!.seq + 1);
      client.close();
    } else {
      const schema = c.postgresSchema!;
      const sql = postgres(POSTGRES_URL, { max: 1, onnotice: () => {}, connection: { search_path: schema } });
      try {
        await sql.unsafe(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
        const orm = pgDrizzle({ client: sql });
        await pgMigrate(orm, { migrationsFolder: old, migrationsSchema: schema });
        for (const r of rows) {
          await sql`INSERT INTO audit (id, at, kind, action, resource_type, resource_id)
                    VALUES (${r.id}, ${new Date(r.at).toISOString()}::timestamptz, ${r.kind}, ${r.action}, 'endpoint', ${r.resourceId})`;
        }
        await pgMigrate(orm, { migrationsFolder: join(MIGRATIONS, 'pg'), migrationsSchema: schema });
        const found = await sql<{ seq: string; id: string; at: string; kind: string }[]>`SELECT seq, id, (extract(epoch FROM at) * 1000)::bigint AS at, kind FROM audit ORDER BY at`;
        upgraded = found.map((r) => ({ seq: Number(r.seq), id: r.id, at: Number(r.at), kind: r.kind }));
        const [added] = await sql<{ seq: string }[]>`INSERT INTO audit (id, at, kind, action, resource_type)
                                                    VALUES (${crypto.randomUUID()}, now(), 'change', 'x', 'endpoint') RETURNING seq`;
        expect(Number(added!.seq)).toBeGreaterThan(Math.max(...upgraded.map((r) => r.seq)));
      } finally {
        await sql.end({ timeout: 1 });
      }
    }
    const byTime = [...rows].sort((a, b) => a.at - b.at);
    expect(upgraded.map((r) => ({ id: r.id, at: r.at, kind: r.kind }))).toEqual(byTime.map((r) => ({ id: r.id, at: r.at, kind: r.kind })));
    expect(new Set(upgraded.map((r) => r.seq)).size).toBe(2);
    if (c.name === 'sqlite') expect(upgraded[0]!.seq).toBeLessThan(upgraded[1]!.seq);
  });
});

describe.each(databaseCases().filter((c) => c.name === 'postgres'))('processes starting together on an empty $name database', (c) => {
  afterAll(() => dropPostgresSchema(c.postgresSchema));

  test('all of them start: migrations are applied once, in turn, not raced', async () => {
    const { openPostgres } = await import('../../../src/core/db/postgres/open.ts');
    const opened = await Promise.allSettled(Array.from({ length: 4 }, () => openPostgres(POSTGRES_URL, { schema: c.postgresSchema!, max: 2 })));
    const failures = opened.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []));
    expect(failures).toEqual([]);
    for (const o of opened) if (o.status === 'fulfilled') await o.value.close();
    const sql = postgres(POSTGRES_URL, { max: 1, onnotice: () => {} });
    try {
      const applied = await sql.unsafe(`SELECT count(*)::int AS n FROM "${c.postgresSchema}"."__drizzle_migrations"`);
      const journal = JSON.parse(readFileSync(join(MIGRATIONS, 'pg', 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
      expect(applied[0]!.n).toBe(journal.entries.length);
    } finally {
      await sql.end();
    }
  });
});
