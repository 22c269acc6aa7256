// First-start and every-start setup: the default workspace, the System authority, the bootstrap
// INSTANCE_ADMIN and its key, and the generated secrets (JWT secret, secrets-store key).
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { ConfigError, type Config, type Logger } from './core/index.ts';
import type { Database } from './core/db/index.ts';
import { type PrincipalStore, type WorkspaceStore, SYSTEM_PRINCIPAL_ID } from './core/identity/index.ts';

const ADMIN_ID_KEY = 'bootstrap.adminPrincipalId';

/** The shortest secret accepted from the data directory (JWT_SECRET's and SECRETS_KEY's own minimum). */
const SECRET_MIN_CHARS = 32;

/** The HS256 secret: JWT_SECRET, else one generated once into DATA_DIR/jwt-secret (0600). */
export function jwtSecret(config: Config): string {
  return config.JWT_SECRET ?? generatedSecret(config.DATA_DIR, 'jwt-secret', 'JWT secret', 'remove it to make a new one (tokens already issued stop working), or set JWT_SECRET');
}

/**
 * The key material of the secrets store: SECRETS_KEY, else one generated once into
 * DATA_DIR/secrets-key (0600). Losing or changing it makes every stored secret unreadable.
 */
export function secretsKey(config: Config): string {
  return config.SECRETS_KEY ?? generatedSecret(config.DATA_DIR, 'secrets-key', 'secrets key', 'restore it from a backup (removing it makes every stored secret unreadable), or set SECRETS_KEY');
}

/**
 * A random secret generated once into the data directory (0600). It is written whole under
 * another name and linked into place, so processes starting together on a fresh directory agree
 * on one (the first link wins; the others read it) and none reads half of it.
 */
function generatedSecret(dataDir: string, name: string, what: string, remedy: string): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, name);
  if (!existsSync(file)) {
    const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
    writeFileSync(draft, randomBytes(48).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
    try {
      linkSync(draft, file);
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(draft);
    }
  }
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < SECRET_MIN_CHARS) {
    throw new ConfigError(`${file}: the generated ${what} is shorter than ${SECRET_MIN_CHARS} characters (damaged?): ${remedy}`);
  }
  return secret;
}

export interface BootstrapResult {
  defaultWorkspaceId: string;
  adminPrincipalId: string;
  /** Set only when this start generated the admin key: it is shown once. */
  generatedAdminKey?: string;
  /** True on the very first start of this database. */
  newInstance: boolean;
}

export async function bootstrap(
  config: Config,
  db: Database,
  stores: { principals: PrincipalStore; workspaces: WorkspaceStore },
  log: Logger,
): Promise<BootstrapResult> {
  const workspace = await stores.workspaces.ensureDefault();
  await stores.principals.ensure(SYSTEM_PRINCIPAL_ID, {
    kind: 'SYSTEM', name: 'System', roles: ['INSTANCE_ADMIN'], platformAccess: true, active: true, workspaceIds: [workspace.id],
  });

  const { settings } = db.t;
  // Claim the admin slot atomically: of several processes starting at once, one creates the admin.
  const candidate = crypto.randomUUID();
  const claimed = await db.read((q) =>
    q.insert(settings).values({ key: ADMIN_ID_KEY, value: candidate, updatedAt: new Date() }).onConflictDoNothing().returning(),
  );
  const newInstance = claimed.length > 0;
  const adminId = newInstance
    ? candidate
    : String((await db.read((q) => q.select().from(settings).where(eq(settings.key, ADMIN_ID_KEY))))[0]!.value);

  await stores.principals.ensure(adminId, {
    kind: 'USER', name: 'admin', email: null, roles: ['INSTANCE_ADMIN'], platformAccess: true, active: true, workspaceIds: [workspace.id],
  });

  let generatedAdminKey: string | undefined;
  if (config.PLATFORM_ADMIN_API_KEY) {
    const stored = await stores.principals.createKey(adminId, 'bootstrap (PLATFORM_ADMIN_API_KEY)', null, { given: config.PLATFORM_ADMIN_API_KEY });
    // Registered once; a revocation stands across restarts (the key may have leaked), but say so.
    if (stored.revokedAt) {
      log.warn('PLATFORM_ADMIN_API_KEY was revoked and stays revoked: it does not authenticate; set another key to get a bootstrap INSTANCE_ADMIN credential', { keyId: stored.id, revokedAt: stored.revokedAt.toISOString() });
    } else if (stored.principalId !== adminId) {
      log.warn('PLATFORM_ADMIN_API_KEY is already the key of another principal; it is not the bootstrap admin\'s', { keyId: stored.id });
    }
  } else if (newInstance) {
    generatedAdminKey = (await stores.principals.createKey(adminId, 'bootstrap (generated)', null)).key;
    log.info('generated the bootstrap INSTANCE_ADMIN API key; it is printed once on stdout');
  } else {
    log.info(
      'this instance already has its INSTANCE_ADMIN, whose key was printed once on its first start; lost it? start with PLATFORM_ADMIN_API_KEY=sk-<at least 29 more characters> to register that key for the administrator (or remove DATA_DIR to start over with an empty database)',
    );
  }
  return { defaultWorkspaceId: workspace.id, adminPrincipalId: adminId, generatedAdminKey, newInstance };
}
