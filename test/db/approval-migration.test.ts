// Migration 0004 adds revision approvals (spec, Authentication rule 9) to databases that already
// hold components: what runs today must keep running, so the active revisions, those an
// INSTANCE_ADMIN saved and those an Endpoint pins by digest count as approved; nothing else does.
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
import { POSTGRES_URL, databaseCases, dropPostgresSchema } from '../helpers/databases.ts';
import { SYSTEM_PRINCIPAL_ID } from '../../src/auth/roles.ts';

const MIGRATIONS = join(import.meta.dir, '../../src/db/migrations');
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** The migrations before 0004: a database as the previous release left it. */
function before0004(dialect: 'sqlite' | 'pg'): string {
  const dir = mkdtempSync(join(tmpdir(), `migrations-${dialect}-`));
  scratch.push(dir);
  cpSync(join(MIGRATIONS, dialect), dir, { recursive: true });
  const journal = join(dir, 'meta', '_journal.json');
  const parsed = JSON.parse(readFileSync(journal, 'utf8')) as { entries: { tag: string }[] };
  parsed.entries = parsed.entries.filter((e) => Number(e.tag.slice(0, 4)) < 4);
  writeFileSync(journal, JSON.stringify(parsed));
  return dir;
}

const admin = crypto.randomUUID();
const author = crypto.randomUUID();
const workspace = crypto.randomUUID();
const component = crypto.randomUUID();
const revisions = [
  { n: 1, status: 'superseded', by: author, digest: 'sha256:pinned' }, // pinned by an Endpoint
  { n: 2, status: 'superseded', by: author, digest: 'sha256:old' }, // nothing runs it
  { n: 3, status: 'active', by: author, digest: 'sha256:active' }, // runs today
  { n: 4, status: 'pending', by: admin, digest: 'sha256:admins' }, // an administrator's
  { n: 5, status: 'pending', by: author, digest: 'sha256:draft' }, // nobody's approval
].map((r) => ({ ...r, id: crypto.randomUUID() }));
const EXPECTED = [SYSTEM_PRINCIPAL_ID, null, SYSTEM_PRINCIPAL_ID, SYSTEM_PRINCIPAL_ID, null];

describe('migration 0004: approvals for existing revisions', () => {
  test('sqlite', () => {
    const client = new SqliteClient(':memory:', { strict: true });
    const orm = sqliteDrizzle({ client });
    sqliteMigrate(orm, { migrationsFolder: before0004('sqlite') });
    client.prepare(`INSERT INTO workspaces (id, name, created_at) VALUES (?, 'w', 0)`).run(workspace);
    for (const [id, roles] of [[admin, ['INSTANCE_ADMIN']], [author, ['COMPONENT_ADMIN']]] as const) {
      client.prepare(`INSERT INTO principals (id, kind, name, roles, platform_access, active, created_at, updated_at) VALUES (?, 'USER', ?, ?, 1, 1, 0, 0)`).run(id, id, JSON.stringify(roles));
    }
    client.prepare(`INSERT INTO components (id, workspace_id, name, kind, version, created_by, created_at, updated_at) VALUES (?, ?, 'c', 'lowcode', 0, ?, 0, 0)`).run(component, workspace, author);
    for (const r of revisions) {
      client.prepare(`INSERT INTO component_revisions (id, component_id, number, digest, status, content, created_by, created_at) VALUES (?, ?, ?, ?, ?, '{}', ?, 0)`).run(r.id, component, r.n, r.digest, r.status, r.by);
    }
    client.prepare(`INSERT INTO endpoints (id, workspace_id, name, method, path, shape, status, component_id, definition, version, created_by, created_at, updated_at) VALUES (?, ?, 'e', 'GET', '/p', 'GET /p', 'active', ?, ?, 0, ?, 0, 0)`)
      .run(crypto.randomUUID(), workspace, component, JSON.stringify({ componentDigest: 'sha256:pinned', timeoutMs: 10000 }), admin);
    sqliteMigrate(orm, { migrationsFolder: join(MIGRATIONS, 'sqlite') });
    const rows = client.query('SELECT approved_by AS approvedBy FROM component_revisions ORDER BY number').all() as { approvedBy: string | null }[];
    expect(rows.map((r) => r.approvedBy)).toEqual(EXPECTED);
  });

  const pg = databaseCases().find((c) => c.name === 'postgres');
  test.skipIf(!pg)(pg ? 'postgres' : 'postgres [skipped: no server]', async () => {
    const schema = pg!.postgresSchema!;
    const sql = postgres(POSTGRES_URL, { max: 1, onnotice: () => {}, connection: { search_path: schema } });
    try {
      await sql.unsafe(`CREATE SCHEMA "${schema}"`);
      const orm = pgDrizzle({ client: sql });
      await pgMigrate(orm, { migrationsFolder: before0004('pg'), migrationsSchema: schema });
      await sql`INSERT INTO workspaces (id, name, created_at) VALUES (${workspace}, 'w', now())`;
      for (const [id, roles] of [[admin, ['INSTANCE_ADMIN']], [author, ['COMPONENT_ADMIN']]] as const) {
        await sql`INSERT INTO principals (id, kind, name, roles, platform_access, active, created_at, updated_at) VALUES (${id}, 'USER', ${id}, ${JSON.stringify(roles)}::jsonb, true, true, now(), now())`;
      }
      await sql`INSERT INTO components (id, workspace_id, name, kind, version, created_by, created_at, updated_at) VALUES (${component}, ${workspace}, 'c', 'lowcode', 0, ${author}, now(), now())`;
      for (const r of revisions) {
        await sql`INSERT INTO component_revisions (id, component_id, number, digest, status, content, created_by, created_at) VALUES (${r.id}, ${component}, ${r.n}, ${r.digest}, ${r.status}, '{}'::jsonb, ${r.by}, now())`;
      }
      await sql`INSERT INTO endpoints (id, workspace_id, name, method, path, shape, status, component_id, definition, version, created_by, created_at, updated_at)
        VALUES (${crypto.randomUUID()}, ${workspace}, 'e', 'GET', '/p', 'GET /p', 'active', ${component}, ${JSON.stringify({ componentDigest: 'sha256:pinned', timeoutMs: 10000 })}::jsonb, 0, ${admin}, now(), now())`;
      await pgMigrate(orm, { migrationsFolder: join(MIGRATIONS, 'pg'), migrationsSchema: schema });
      const rows = await sql<{ approved_by: string | null }[]>`SELECT approved_by FROM component_revisions ORDER BY number`;
      expect(rows.map((r) => r.approved_by)).toEqual(EXPECTED);
    } finally {
      await sql.end({ timeout: 1 });
      await dropPostgresSchema(schema);
    }
  });
});
