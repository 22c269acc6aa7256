// A process started alone (scale-out) says at start which settings it is missing for that.
import { expect, test } from 'bun:test';
import { loadConfig } from '../src/core/config.ts';
import { scaleOutWarnings } from '../src/scale-out.ts';

test('started alone without the origins, a shared JWT secret and a shared secrets key, each process says what it will do instead', () => {
  const env = { DATA_DIR: '/srv/platform' };
  const config = loadConfig(env);
  const control = scaleOutWarnings('control-plane', config, env);
  expect(control).toHaveLength(3);
  expect(control[0]).toContain('ENDPOINT_RUNTIME_URL is not set: generated OpenAPI documents name http://127.0.0.1:8081');
  expect(control[1]).toContain('JWT_SECRET is not set');
  expect(control[1]).toContain('/srv/platform');
  expect(control[2]).toContain('SECRETS_KEY is not set');
  expect(control[2]).toContain('/srv/platform');
  const runtime = scaleOutWarnings('runtime', config, env);
  expect(runtime).toHaveLength(2); // runtimes never open secrets
  expect(runtime[0]).toContain('BASE_URL is not set: api.platform calls from components go to http://127.0.0.1:8080');
  expect(runtime[1]).toContain('JWT_SECRET is not set');
});

test('with the origins and shared secrets there is nothing to say; external JWT keys do not replace the secret', () => {
  const env = { BASE_URL: 'https://api.example.com', ENDPOINT_RUNTIME_URL: 'https://run.example.com', JWT_SECRET: 'x'.repeat(40), SECRETS_KEY: 'y'.repeat(40) };
  const config = loadConfig(env);
  expect(scaleOutWarnings('control-plane', config, env)).toEqual([]);
  expect(scaleOutWarnings('runtime', config, env)).toEqual([]);
  // Platform tokens are signed with the secret whatever keys verify other issuers' tokens.
  const jwks = { BASE_URL: 'https://api.example.com', JWT_JWKS_URL: 'https://idp.example.com/jwks.json' };
  expect(scaleOutWarnings('runtime', loadConfig(jwks), jwks)).toEqual([expect.stringContaining('JWT_SECRET is not set')]);
  // The bootstrap key is registered by the control plane only: a runtime given it says so.
  const admin = { ...env, PLATFORM_ADMIN_API_KEY: 'sk-admin-0123456789abcdefghijklmnopqrst' };
  expect(scaleOutWarnings('runtime', loadConfig(admin), admin)).toEqual([expect.stringContaining('PLATFORM_ADMIN_API_KEY is set but a runtime does not register it')]);
  expect(scaleOutWarnings('control-plane', loadConfig(admin), admin)).toEqual([]);
});
