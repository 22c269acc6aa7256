// What a process started alone (scale-out) should say at start: the settings it runs on that only
// make sense when every origin runs in one process (`npm start`), so that a missing one shows in
// the log rather than as a wrong OpenAPI `servers` entry or a refused token much later.
import type { Config } from './core/index.ts';

export function scaleOutWarnings(role: 'control-plane' | 'runtime', config: Config, env: Record<string, string | undefined>): string[] {
  const warnings: string[] = [];
  if (role === 'control-plane' && !env.ENDPOINT_RUNTIME_URL) {
    warnings.push(`ENDPOINT_RUNTIME_URL is not set: generated OpenAPI documents name ${config.ENDPOINT_RUNTIME_URL} as the runtime's origin; set it to the runtimes' public origin`);
  }
  if (role === 'runtime' && !env.BASE_URL) {
    warnings.push(`BASE_URL is not set: api.platform calls from components go to ${config.BASE_URL}; set it to the control plane's origin`);
  }
  if (role === 'runtime' && env.PLATFORM_ADMIN_API_KEY) {
    warnings.push('PLATFORM_ADMIN_API_KEY is set but a runtime does not register it: the control plane does at its start (until one has run on this database, the key is refused here as unknown)');
  }
  // Platform tokens (POST /auth/token, api.platform's) are signed with this secret whatever
  // external keys (JWT_PUBLIC_KEY, JWT_JWKS_URL) are configured for other issuers' tokens.
  if (!env.JWT_SECRET) {
    warnings.push(`JWT_SECRET is not set: this process signs and verifies platform tokens with the secret generated in ${config.DATA_DIR}; processes that do not share it refuse each other's tokens (api.platform's included): give every process the same JWT_SECRET`);
  }
  // Secrets are stored sealed with this key: a control plane with a key of its own cannot read
  // what another stored (its MCP servers then fail for want of credentials).
  if (role === 'control-plane' && !env.SECRETS_KEY) {
    warnings.push(`SECRETS_KEY is not set: this process seals and opens stored secrets with the key generated in ${config.DATA_DIR}; control planes that do not share it cannot read each other's secrets: give every control plane the same SECRETS_KEY`);
  }
  return warnings;
}
