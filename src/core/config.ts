// Configuration: read once from the environment, validated with TypeBox (DESIGN §1).
import { createPublicKey, type KeyObject } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { compile } from './http/index.ts';

const Port = Type.Integer({ minimum: 0, maximum: 65535 });

const EnvSchema = Type.Object({
  PORT: Port,
  RUNTIME_PORT: Port,
  BASE_URL: Type.Optional(Type.String({ format: 'uri' })),
  ENDPOINT_RUNTIME_URL: Type.Optional(Type.String({ format: 'uri' })),
  DATABASE_URL: Type.String({ pattern: '^(sqlite:.+|postgres(ql)?://.+)$', maxLength: 2048 }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://', maxLength: 2048 })),
  JWT_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  JWT_PUBLIC_KEY: Type.Optional(Type.String({ minLength: 1 })),
  JWT_JWKS_URL: Type.Optional(Type.String({ format: 'uri' })),
  JWT_ISSUER: Type.Optional(Type.String({ minLength: 1 })),
  JWT_AUDIENCE: Type.Optional(Type.String({ minLength: 1 })),
  PLATFORM_ADMIN_API_KEY: Type.Optional(Type.String({ pattern: '^sk-\\S{29,}$', maxLength: 512 })),
  COMPONENT_ISOLATION: Type.Union([Type.Literal('process'), Type.Literal('worker')]),
  /** `allow`: process isolation starts even when a sandbox layer is missing (else the start fails). */
  COMPONENT_ISOLATION_DEGRADED: Type.Optional(Type.Literal('allow')),
  EXECUTOR_HOSTS: Type.Integer({ minimum: 1, maximum: 64 }),
  EXECUTOR_MAX_HOSTS: Type.Integer({ minimum: 1, maximum: 1024 }),
  EXECUTOR_HOSTS_PER_WORKSPACE: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
  EXECUTOR_MEMORY_MB: Type.Integer({ minimum: 64, maximum: 65536 }),
  INDEX_POLL_MS: Type.Integer({ minimum: 100, maximum: 600_000 }),
  AUDIT_RETENTION_DAYS: Type.Optional(Type.Integer({ minimum: 1, maximum: 36_500 })),
  ENABLED_MODELS: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  RUN_LEASE_MS: Type.Integer({ minimum: 1000, maximum: 600_000 }),
  AGENT_APPROVAL_TIMEOUT_MS: Type.Integer({ minimum: 1000, maximum: 604_800_000 }),
  /** Key of the secrets store (AES-GCM); unset: generated once into DATA_DIR/secrets-key. */
  SECRETS_KEY: Type.Optional(Type.String({ minLength: 32, maxLength: 1024 })),
  /** The OpenAI-compatible API every enabled model but `scripted` is called at. */
  MODEL_BASE_URL: Type.String({ format: 'uri', maxLength: 2048 }),
  MODEL_API_KEY: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  MCP_ALLOW_HTTP_LOOPBACK: Type.Union([Type.Literal('true'), Type.Literal('false')]),
  DATA_DIR: Type.String({ minLength: 1 }),
  LOG_LEVEL: Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')]),
  LOG_FORMAT: Type.Union([Type.Literal('json'), Type.Literal('pretty')]),
  /** When set, GET /metrics on both origins needs `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: Type.Optional(Type.String({ pattern: '^\\S{16,1024}$' })),
});

type Env = Static<typeof EnvSchema>;

export interface Config extends Omit<Env, 'BASE_URL' | 'ENDPOINT_RUNTIME_URL'> {
  BASE_URL: string;
  ENDPOINT_RUNTIME_URL: string;
}

const validator = compile(EnvSchema);

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const INTEGER_VARS = new Set(['PORT', 'RUNTIME_PORT', 'EXECUTOR_HOSTS', 'EXECUTOR_MAX_HOSTS', 'EXECUTOR_HOSTS_PER_WORKSPACE', 'EXECUTOR_MEMORY_MB', 'INDEX_POLL_MS', 'AUDIT_RETENTION_DAYS', 'RUN_LEASE_MS', 'AGENT_APPROVAL_TIMEOUT_MS']);

/**
 * Reads and validates configuration. `ports` lets `npm start` and tests pass the ports the
 * servers actually bound, so the derived URLs are right when PORT=0.
 */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, unknown> = {
    PORT: '8080',
    RUNTIME_PORT: '8081',
    DATABASE_URL: 'sqlite:data/platform.db',
    COMPONENT_ISOLATION: 'process',
    EXECUTOR_HOSTS: '2',
    EXECUTOR_MAX_HOSTS: '16',
    EXECUTOR_MEMORY_MB: '1024',
    INDEX_POLL_MS: '2000',
    ENABLED_MODELS: 'scripted',
    RUN_LEASE_MS: '15000',
    AGENT_APPROVAL_TIMEOUT_MS: '86400000',
    MODEL_BASE_URL: 'https://api.openai.com/v1',
    MCP_ALLOW_HTTP_LOOPBACK: 'false',
    DATA_DIR: 'data',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
  };
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = source[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  for (const key of INTEGER_VARS) {
    const value = raw[key];
    if (typeof value === 'string') raw[key] = /^\d+$/.test(value) ? Number(value) : value;
  }
  raw.ENABLED_MODELS = String(raw.ENABLED_MODELS)
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m.length > 0);

  const violations = validator.violations(raw);
  const lines = violations.length > 0
    ? violations.map((v) => `${v.pointer.slice(1).split('/')[0]}: ${v.message}`)
    : meaningViolations(raw as Env);
  if (lines.length > 0) throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  const env = raw as Env;
  return {
    ...env,
    BASE_URL: stripSlash(env.BASE_URL ?? `http://127.0.0.1:${env.PORT}`),
    ENDPOINT_RUNTIME_URL: stripSlash(env.ENDPOINT_RUNTIME_URL ?? `http://127.0.0.1:${env.RUNTIME_PORT}`),
  };
}

const HTTP_URL_VARS = ['BASE_URL', 'ENDPOINT_RUNTIME_URL', 'JWT_JWKS_URL', 'MODEL_BASE_URL'] as const;

/** What a schema cannot say: origins are HTTP(S) URLs, and the public key is one the platform can verify with. */
function meaningViolations(env: Env): string[] {
  const out: string[] = [];
  for (const name of HTTP_URL_VARS) {
    const value = env[name];
    if (value !== undefined && !/^https?:$/.test(new URL(value).protocol)) out.push(`${name}: must be an http:// or https:// URL`);
  }
  if (env.REDIS_URL !== undefined) {
    const problem = redisUrlProblem(env.REDIS_URL);
    if (problem) out.push(`REDIS_URL: ${problem}`);
  }
  // The Postgres driver parses the URL as WHATWG URL does: a password with '/', '@' or '#' must be
  // percent-encoded. Said here, naming the variable and never repeating its value.
  if (env.DATABASE_URL !== undefined && /^postgres(ql)?:/.test(env.DATABASE_URL) && !URL.canParse(env.DATABASE_URL)) {
    out.push('DATABASE_URL: not a valid URL (postgres://user:password@host:port/database; percent-encode /, @, # and % in the password)');
  }
  if (env.JWT_PUBLIC_KEY !== undefined) {
    const problem = publicKeyProblem(env.JWT_PUBLIC_KEY);
    if (problem) out.push(`JWT_PUBLIC_KEY: ${problem}`);
  }
  return out;
}

/**
 * Why a redis:// URL cannot be used, or null: it must parse (as ioredis parses it), name a host,
 * and give a database, if any, as a number.
 */
function redisUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'not a valid URL (redis://[[user]:password@]host[:port][/db])';
  }
  if (url.hostname === '') return 'must name a host (redis://host[:port][/db])';
  if (url.pathname !== '' && url.pathname !== '/' && !/^\/\d{1,5}$/.test(url.pathname)) return `the database (${url.pathname.slice(1)}) must be a number`;
  return null;
}

/** Why a PEM is no RSA or P-256 public key (what RS256 and ES256 verify with), or null. */
function publicKeyProblem(pem: string): string | null {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    return 'not a PEM-encoded public key (-----BEGIN PUBLIC KEY----- …)';
  }
  if (key.asymmetricKeyType === 'rsa') return null;
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return null;
  return `unsupported key type ${key.asymmetricKeyType}${key.asymmetricKeyDetails?.namedCurve ? ` (${key.asymmetricKeyDetails.namedCurve})` : ''}; use RSA (RS256) or P-256 (ES256)`;
}

/** Recomputes the derived origins once the real ports are known (PORT=0 binds any free port). */
export function withBoundPorts(config: Config, source: Record<string, string | undefined>, ports: { control?: number; runtime?: number }): Config {
  return {
    ...config,
    BASE_URL: source.BASE_URL ? config.BASE_URL : `http://127.0.0.1:${ports.control ?? config.PORT}`,
    ENDPOINT_RUNTIME_URL: source.ENDPOINT_RUNTIME_URL
      ? config.ENDPOINT_RUNTIME_URL
      : `http://127.0.0.1:${ports.runtime ?? config.RUNTIME_PORT}`,
  };
}

const stripSlash = (url: string) => url.replace(/\/+$/, '');
