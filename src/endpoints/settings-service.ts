// GET/PUT/DELETE /api/v1/endpoints/settings: the instance's Endpoint execution defaults.
import type { Database } from '../core/db/index.ts';
import { type Principal, loadPrincipal } from '../core/identity/index.ts';
import { recordChange } from '../audit/index.ts';
import { validBody, ProblemError, type Violation } from '../core/http/index.ts';
import {
  bumpIndexVersion,
  validators,
  deleteSettings,
  readSettings,
  writeSettings,
  type EndpointSettings,
} from '../core/definitions/index.ts';
import type { IndexPublisher } from '../core/index-channels/index.ts';

export class EndpointSettingsService {
  constructor(private readonly db: Database, private readonly publisher: IndexPublisher) {}

  get(): Promise<EndpointSettings> {
    return this.db.read((q) => readSettings(this.db, q));
  }

  async put(principal: Principal, rawBody: unknown): Promise<EndpointSettings> {
    const body = validBody(rawBody, validators.settings, accountRequired);
    const value = { executionPolicy: body.executionPolicy, currentUser: body.currentUser ?? 'BUSINESS_USER' } as const;
    const { db } = this;
    const version = await db.write(async (q) => {
      // A named account must exist in either mode (CALLER keeps it for a later switch); the mode
      // that runs as it needs it active and with platform access.
      const { mode, serviceAccountId: id } = value.executionPolicy;
      if (mode === 'SERVICE_ACCOUNT' || id !== undefined) {
        const account = id ? await loadPrincipal(db, q, id) : null;
        const message = !account || account.kind !== 'SERVICE_ACCOUNT' ? 'No service account with this id'
          : mode === 'SERVICE_ACCOUNT' && (!account.active || !account.platformAccess) ? 'The service account must be active and have platform access' : null;
        if (message) throw new ProblemError(422, 'VALIDATION_FAILED', message, { errors: [{ pointer: '/executionPolicy/serviceAccountId', message }] });
      }
      await writeSettings(db, q, value);
      await recordChange(db, q, principal, { action: 'endpoint-settings.put', resourceType: 'endpoint-settings', resourceId: null, workspaceId: null, beforeVersion: null, afterVersion: null, details: { ...value } });
      return bumpIndexVersion(db, q);
    });
    await this.publisher.published(version);
    return { ...value, saved: true };
  }

  /** Removes the saved settings: the instance falls back to the legacy System authority. */
  async delete(principal: Principal): Promise<void> {
    const { db } = this;
    const version = await db.write(async (q) => {
      await deleteSettings(db, q);
      await recordChange(db, q, principal, { action: 'endpoint-settings.delete', resourceType: 'endpoint-settings', resourceId: null, workspaceId: null, beforeVersion: null, afterVersion: null });
      return bumpIndexVersion(db, q);
    });
    await this.publisher.published(version);
  }
}

/** SERVICE_ACCOUNT mode names its account: checked with the schema, so it is reported alongside. */
function accountRequired(body: unknown): Violation[] {
  const policy = (body as { executionPolicy?: { mode?: unknown; serviceAccountId?: unknown } } | null)?.executionPolicy;
  if (policy?.mode !== 'SERVICE_ACCOUNT' || policy.serviceAccountId !== undefined) return [];
  const message = 'SERVICE_ACCOUNT mode needs serviceAccountId';
  return [{ pointer: '/executionPolicy/serviceAccountId', message }];
}
