// Instance Endpoint settings (spec, Authentication rules 1–9; DESIGN §8): the default execution
// identity and what api.currentUser() returns. No saved row is the legacy state: System authority
// with the invoking user as business identity.
import { eq } from 'drizzle-orm';
import type { Database, Orm } from '../db/index.ts';

const SETTINGS_KEY = 'endpoints.settings';

export interface SavedSettings {
  executionPolicy: { mode: 'CALLER' | 'SERVICE_ACCOUNT'; serviceAccountId?: string };
  currentUser: 'BUSINESS_USER' | 'EXECUTION_ACCOUNT';
}

export type EndpointSettings =
  | (SavedSettings & { saved: true })
  | { executionPolicy: { mode: 'SYSTEM' }; currentUser: 'BUSINESS_USER'; saved: false };

const LEGACY_SETTINGS: EndpointSettings = { executionPolicy: { mode: 'SYSTEM' }, currentUser: 'BUSINESS_USER', saved: false };

/** An Endpoint's own execution policy, as far as choosing the execution identity goes. */
interface PolicyChoice {
  mode: 'CALLER' | 'SERVICE_ACCOUNT';
  serviceAccountId?: string | undefined;
}

/** Who executes: the Endpoint's saved policy wins over the instance settings; neither is the legacy System authority. */
export const executionModeOf = (policy: PolicyChoice | undefined, settings: EndpointSettings): 'CALLER' | 'SERVICE_ACCOUNT' | 'SYSTEM' =>
  policy?.mode ?? (settings.saved ? settings.executionPolicy.mode : 'SYSTEM');

/** The service account an Endpoint executes as (undefined in other modes, or when none is named). */
export function executionAccountIdOf(policy: PolicyChoice | undefined, settings: EndpointSettings): string | undefined {
  if (policy) return policy.mode === 'SERVICE_ACCOUNT' ? policy.serviceAccountId : undefined;
  return settings.saved && settings.executionPolicy.mode === 'SERVICE_ACCOUNT' ? settings.executionPolicy.serviceAccountId : undefined;
}

export async function readSettings(db: Database, q: Orm): Promise<EndpointSettings> {
  const { settings } = db.t;
  const [row] = await q.select().from(settings).where(eq(settings.key, SETTINGS_KEY));
  return row ? { ...(row.value as SavedSettings), saved: true } : LEGACY_SETTINGS;
}

export async function writeSettings(db: Database, q: Orm, value: SavedSettings): Promise<void> {
  const { settings } = db.t;
  const now = new Date();
  await q
    .insert(settings)
    .values({ key: SETTINGS_KEY, value, updatedAt: now })
    .onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: now } });
}

export async function deleteSettings(db: Database, q: Orm): Promise<boolean> {
  const { settings } = db.t;
  const rows = await q.delete(settings).where(eq(settings.key, SETTINGS_KEY)).returning({ key: settings.key });
  return rows.length > 0;
}

/** A new instance starts with Caller authority (spec rule 7); an existing one keeps what it has. */
export async function saveDefaultsForNewInstance(db: Database): Promise<void> {
  const { settings } = db.t;
  const value: SavedSettings = { executionPolicy: { mode: 'CALLER' }, currentUser: 'BUSINESS_USER' };
  await db.read((q) => q.insert(settings).values({ key: SETTINGS_KEY, value, updatedAt: new Date() }).onConflictDoNothing());
}
