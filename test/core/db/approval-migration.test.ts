// Migrations 0004 and 0005 bring revision approvals (spec, Authentication rule 9) to databases that
// already hold components. 0004: what ran then kept running for administrator accounts (active
// revisions, those an INSTANCE_ADMIN saved, those an Endpoint pins count as approved by System).
// 0005: approvals per account. Those approvals become ones with the roles [INSTANCE_ADMIN]; every
// other revision gets its author's approval with the author's roles and workspaces, unless it was
// saved from inside an execution (api.platform, told by its audit row).
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
import { POSTGRES_URL, databaseCases, dropPostgresSchema } from '../../helpers/databases.ts';
import { SYSTEM_PRINCIPAL_ID } from '../../../src/core/identity/roles.ts';

const MIGRATIONS = join(import.meta.dir, '../../../src/core/db/migrations');
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** The migrations before number `next`: a database as an earlier release left it. */
function before(dialect: 'sqlite' | 'pg', next: number): string {
  const dir = mkdtempSync(join(tmpdir(), `migrations-${dialect}-`));
  scratch.push(dir);
  cpSync(join(MIGRATIONS, dialect), dir, { recursive: true });
  const journal = join(dir, 'meta', '_journal.json');
  const parsed = JSON.parse(readFileSync(journal, 'utf8')) as { entries: { tag: string }[] };
  parsed.entries = parsed.entries.filter((e) => Number(e.tag.slice(0, 4)) < next);
  writeFileSync(journal, JSON.stringify(parsed));
  return dir;
}

const admin = crypto.randomUUID();
const author = crypto.randomUUID();
const account = crypto.randomUUID(); // a service account that saved code with its own key
const workspace = crypto.randomUUID();
const other = crypto.randomUUID();
const component = crypto.randomUUID();
const PRINCIPALS = [
  { id: admin, kind: 'USER', roles: ['INSTANCE_ADMIN'], workspaces: [workspace] },
  { id: author, kind: 'USER', roles: ['COMPONENT_ADMIN'], workspaces: [workspace] },
  { id: account, kind: 'SERVICE_ACCOUNT', roles: ['COMPONENT_ADMIN', 'AGENT_ADMIN'], workspaces: [workspace, other] },
];

/** Revisions saved before 0004. */
const early = [
  { n: 1, status: 'superseded', by: author, digest: 'sha256:pinned' }, // pinned by an Endpoint
  { n: 2, status: 'superseded', by: author, digest: 'sha256:old' }, // nothing runs it
  { n: 3, status: 'active', by: author, digest: 'sha256:active' }, // runs today
  { n: 4, status: 'pending', by: admin, digest: 'sha256:admins' }, // an administrator's
  { n: 5, status: 'pending', by: author, digest: 'sha256:draft' }, // nobody's approval
].map((r) => ({ ...r, id: crypto.randomUUID(), approvedBy: null as string | null, inExecution: false }));
/** Revisions saved between 0004 and 0005, as that release recorded them. */
const later = [
  { n: 6, status: 'pending', by: admin, approvedBy: admin, inExecution: false }, // an administrator's own save
  { n: 7, status: 'pending', by: author, approvedBy: null, inExecution: true }, // code run as the author saved it
  { n: 8, status: 'pending', by: admin, approvedBy: null, inExecution: true }, // code run as the administrator saved it
  { n: 9, status: 'pending', by: account, approvedBy: null, inExecution: false }, // the service account's own save
].map((r) => ({ ...r, id: crypto.randomUUID(), digest: `sha256:later-${r.n}` }));

interface ExpectedApproval { principalId: string; roles: string[]; workspaceIds: string[] }
const SYSTEM: ExpectedApproval = { principalId: SYSTEM_PRINCIPAL_ID, roles: ['INSTANCE_ADMIN'], workspaceIds: [] };
const BY_AUTHOR: ExpectedApproval = { principalId: author, roles: ['COMPONENT_ADMIN'], workspaceIds: [workspace] };
/** Each revision's approvals after 0005, by number. */
const EXPECTED_APPROVALS: [number, ExpectedApproval][] = [
  [1, SYSTEM], [2, BY_AUTHOR], [3, SYSTEM], [4, SYSTEM], [5, BY_AUTHOR],
  [6, { principalId: admin, roles: ['INSTANCE_ADMIN'], workspaceIds: [] }],
  [9, { principalId: account, roles: ['COMPONENT_ADMIN', 'AGENT_ADMIN'], workspaceIds: [workspace, other] }],
];
/** 0004 alone: approved_by by number. */
const EXPECTED_0004 = [SYSTEM_PRINCIPAL_ID, null, SYSTEM_PRINCIPAL_ID, SYSTEM_PRINCIPAL_ID, null];

interface ApprovalRow { number: number; principalId: string; roles: string[]; workspaceIds: string[]; approvedAt: number }

const shape = (rows: ApprovalRow[]) => rows.map((r) => [r.number, { principalId: r.principalId, roles: r.roles, workspaceIds: [...r.workspaceIds].sort() }]);
const expected = () => EXPECTED_APPROVALS.map(([n, a]) => [n, { ...a, workspaceIds: [...a.workspaceIds].sort() }]);

describe('migrations 0004 and 0005: approvals for existing revisions', () => {
  test('sqlite', () => {
    const client = new SqliteClient(':memory:', { strict: true });
    const orm = sqliteDrizzle({ client });
    sqliteMigrate(orm, { migrationsFolder: before('sqlite', 4) });
    for (const w of [workspace, other]) client.prepare(`INSERT INTO workspaces (id, name, created_at) VALUES (?, ?, 0)`).run(w, w);
    for (const p of PRINCIPALS) {
      client.prepare(`INSERT INTO principals (id, kind, name, roles, platform_access, active, created_at, updated_at) VALUES (?, ?, ?, ?, 1, 1, 0, 0)`).run(p.id, p.kind, p.id, JSON.stringify(p.roles));
      p.workspaces.forEach((w, position) => client.prepare(`INSERT INTO memberships (principal_id, workspace_id, position) VALUES (?, ?, ?)`).run(p.id, w, position));
    }
    client.prepare(`INSERT INTO components (id, workspace_id, name, kind, version, created_by, created_at, updated_at) VALUES (?, ?, 'c', 'lowcode', 0, ?, 0, 0)`).run(component, workspace, author);
    const insert = (r: (typeof early)[number], withApproval: boolean) => {
      const columns = withApproval ? ', approved_by' : '';
      client.prepare(`INSERT INTO component_revisions (id, component_id, number, digest, status, content, created_by, created_at${columns}) VALUES (?, ?, ?, ?, ?, '{}', ?, ?${withApproval ? ', ?' : ''})`)
        .run(...[r.id, component, r.n, r.digest, r.status, r.by, r.n * 1000, ...(withApproval ? [r.approvedBy] : [])]);
      const audit = `INSERT INTO audit (id, at, kind, action, actor_id, execution_account_id, resource_type, resource_id, execution_id, details) VALUES (?, ?, 'change', 'component.update', ?, ?, 'component', ?, ?, ?)`;
      client.prepare(audit).run(crypto.randomUUID(), r.n * 1000, r.by, r.inExecution ? r.by : null, component, r.inExecution ? crypto.randomUUID() : null, JSON.stringify({ revisionId: r.id }));
    };
    for (const r of early) insert(r, false);
    client.prepare(`INSERT INTO endpoints (id, workspace_id, name, method, path, shape, status, component_id, definition, version, created_by, created_at, updated_at) VALUES (?, ?, 'e', 'GET', '/p', 'GET /p', 'active', ?, ?, 0, ?, 0, 0)`)
      .run(crypto.randomUUID(), workspace, component, JSON.stringify({ componentDigest: 'sha256:pinned', timeoutMs: 10000 }), admin);

    sqliteMigrate(orm, { migrationsFolder: before('sqlite', 5) });
    const after0004 = client.query('SELECT approved_by AS approvedBy FROM component_revisions ORDER BY number').all() as { approvedBy: string | null }[];
    expect(after0004.map((r) => r.approvedBy)).toEqual(EXPECTED_0004);
    for (const r of later) insert(r, true);

    sqliteMigrate(orm, { migrationsFolder: join(MIGRATIONS, 'sqlite') });
    const rows = (client.query(`SELECT r.number, a.principal_id AS principalId, a.roles, a.workspace_ids AS workspaceIds, a.approved_at AS approvedAt
      FROM revision_approvals a JOIN component_revisions r ON r.id = a.revision_id ORDER BY r.number, a.seq`).all() as Record<string, unknown>[])
      .map((row) => ({ ...row, roles: JSON.parse(row.roles as string), workspaceIds: JSON.parse(row.workspaceIds as string) }) as ApprovalRow);
    expect(shape(rows)).toEqual(expected());
    // An approval carries its revision's time: when its author saved it.
    expect(rows.map((r) => r.approvedAt)).toEqual(rows.map((r) => r.number * 1000));
    const columns = client.query(`SELECT name FROM pragma_table_info('component_revisions')`).all() as { name: string }[];
    expect(columns.map((c) => c.name)).not.toContain('approved_by');
  });

  const pg = databaseCases().find((c) => c.name === 'postgres');
  test.skipIf(!pg)(pg ? 'postgres' : 'postgres [skipped: no server]', async () => {
    const schema = pg!.postgresSchema!;
    const sql = postgres(POSTGRES_URL, { max: 1, onnotice: () => {}, connection: { search_path: schema } });
    try {
      await sql.unsafe(`CREATE SCHEMA "${schema}"`);
      const orm = pgDrizzle({ client: sql });
      await pgMigrate(orm, { migrationsFolder: before('pg', 4), migrationsSchema: schema });
      for (const w of [workspace, other]) await sql`INSERT INTO workspaces (id, name, created_at) VALUES (${w}, ${w}, now())`;
      for (const p of PRINCIPALS) {
        await sql`INSERT INTO principals (id, kind, name, roles, platform_access, active, created_at, updated_at) VALUES (${p.id}, ${p.kind}, ${p.id}, ${JSON.stringify(p.roles)}::jsonb, true, true, now(), now())`;
        for (const [position, w] of p.workspaces.entries()) await sql`INSERT INTO memberships (principal_id, workspace_id, position) VALUES (${p.id}, ${w}, ${position})`;
      }
      await sql`INSERT INTO components (id, workspace_id, name, kind, version, created_by, created_at, updated_at) VALUES (${component}, ${workspace}, 'c', 'lowcode', 0, ${author}, now(), now())`;
      const insert = async (r: (typeof early)[number], withApproval: boolean) => {
        const at = new Date(r.n * 1000).toISOString();
        if (withApproval) {
          await sql`INSERT INTO component_revisions (id, component_id, number, digest, status, content, created_by, created_at, approved_by) VALUES (${r.id}, ${component}, ${r.n}, ${r.digest}, ${r.status}, '{}'::jsonb, ${r.by}, ${at}, ${r.approvedBy})`;
        } else {
          await sql`INSERT INTO component_revisions (id, component_id, number, digest, status, content, created_by, created_at) VALUES (${r.id}, ${component}, ${r.n}, ${r.digest}, ${r.status}, '{}'::jsonb, ${r.by}, ${at})`;
        }
        await sql`INSERT INTO audit (id, at, kind, action, actor_id, execution_account_id, resource_type, resource_id, execution_id, details)
          VALUES (${crypto.randomUUID()}, ${at}, 'change', 'component.update', ${r.by}, ${r.inExecution ? r.by : null}, 'component', ${component}, ${r.inExecution ? crypto.randomUUID() : null}, ${JSON.stringify({ revisionId: r.id })}::jsonb)`;
      };
      for (const r of early) await insert(r, false);
      await sql`INSERT INTO endpoints (id, workspace_id, name, method, path, shape, status, component_id, definition, version, created_by, created_at, updated_at)
        VALUES (${crypto.randomUUID()}, ${workspace}, 'e', 'GET', '/p', 'GET /p', 'active', ${component}, ${JSON.stringify({ componentDigest: 'sha256:pinned', timeoutMs: 10000 })}::jsonb, 0, ${admin}, now(), now())`;

      await pgMigrate(orm, { migrationsFolder: before('pg', 5), migrationsSchema: schema });
      const after0004 = await sql<{ approved_by: string | null }[]>`SELECT approved_by FROM component_revisions ORDER BY number`;
      expect(after0004.map((r) => r.approved_by)).toEqual(EXPECTED_0004);
      for (const r of later) await insert(r, true);

      await pgMigrate(orm, { migrationsFolder: join(MIGRATIONS, 'pg'), migrationsSchema: schema });
      const rows = (await sql<{ number: number; principal_id: string; roles: string[]; workspace_ids: string[]; approved_at: string | Date }[]>`
        SELECT r.number, a.principal_id, a.roles, a.workspace_ids, a.approved_at FROM revision_approvals a JOIN component_revisions r ON r.id = a.revision_id ORDER BY r.number, a.seq`)
        .map((r) => ({ number: r.number, principalId: r.principal_id, roles: r.roles, workspaceIds: r.workspace_ids, approvedAt: new Date(r.approved_at).getTime() }));
      expect(shape(rows)).toEqual(expected());
      expect(rows.map((r) => r.approvedAt)).toEqual(rows.map((r) => r.number * 1000));
      const columns = await sql<{ column_name: string }[]>`SELECT column_name FROM information_schema.columns WHERE table_schema = ${schema} AND table_name = 'component_revisions'`;
      expect(columns.map((c) => c.column_name)).not.toContain('approved_by');
    } finally {
      await sql.end({ timeout: 1 });
      await dropPostgresSchema(schema);
    }
  });
});
