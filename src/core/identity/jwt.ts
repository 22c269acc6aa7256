// JWT verification and minting with jose (DESIGN §2): algorithm pinned to the configured key,
// `exp` required, `iss`/`aud` checked when configured, no key URLs taken from tokens.
import { createPublicKey } from 'node:crypto';
import {
  SignJWT,
  createRemoteJWKSet,
  decodeProtectedHeader,
  importSPKI,
  jwtVerify,
  type CryptoKey,
  type JWTVerifyGetKey,
  type KeyObject,
} from 'jose';

export interface JwtOptions {
  /** HS256 secret for tokens the platform mints (and verifies when no external key is set). */
  secret: string;
  publicKeyPem?: string;
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
}

interface VerifiedToken {
  sub: string;
  exp: number;
  /** From a token the platform minted for api.platform: the invocation it acts for. */
  delegation?: { initiatorId: string; executionId: string };
  /** From a token the platform minted at /auth/token for an API key's holder: that key's id. */
  apiKeyId?: string;
}

/** The claim naming the API key a platform-minted token derives from (revoking the key ends the token). */
export const API_KEY_CLAIM = 'api_key';

/** The `scope` of tokens minted for api.platform calls (runtime/platform-call.ts). */
export const EXECUTION_SCOPE = 'endpoint-execution';

export interface JwtService {
  /** Returns the principal id (`sub`), or null for any token that does not verify. */
  verify(token: string): Promise<VerifiedToken | null>;
  /** Mints a short-lived platform token for a principal. */
  mint(principalId: string, ttlSeconds: number, extra?: Record<string, unknown>): Promise<{ token: string; expiresAt: Date }>;
}

/** Tokens the platform mints carry this `kid`, so they verify even when an external key is configured. */
const PLATFORM_KID = 'platform';
const CLOCK_TOLERANCE_SECONDS = 5;

type ExternalKey = { key: CryptoKey | KeyObject | Uint8Array | JWTVerifyGetKey; algorithms: string[] };

async function externalKey(options: JwtOptions): Promise<ExternalKey | null> {
  if (options.publicKeyPem) {
    const type = createPublicKey(options.publicKeyPem).asymmetricKeyType;
    const alg = type === 'rsa' ? 'RS256' : type === 'ec' ? 'ES256' : null;
    if (!alg) throw new Error(`JWT_PUBLIC_KEY: unsupported key type ${type}; use RSA (RS256) or P-256 (ES256)`);
    return { key: await importSPKI(options.publicKeyPem, alg), algorithms: [alg] };
  }
  if (options.jwksUrl) {
    // The URL comes from configuration only; token headers (jku/x5u) are never followed.
    return { key: createRemoteJWKSet(new URL(options.jwksUrl)), algorithms: ['RS256', 'ES256'] };
  }
  return null;
}

export async function createJwtService(options: JwtOptions): Promise<JwtService> {
  const secret = new TextEncoder().encode(options.secret);
  const external = await externalKey(options);
  const claims = {
    requiredClaims: ['exp', 'sub'],
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    ...(options.issuer ? { issuer: options.issuer } : {}),
    ...(options.audience ? { audience: options.audience } : {}),
  };

  return {
    async verify(token) {
      try {
        const header = decodeProtectedHeader(token);
        const useSecret = !external || header.kid === PLATFORM_KID;
        const { payload } = useSecret
          ? await jwtVerify(token, secret, { ...claims, algorithms: ['HS256'] })
          : await jwtVerify(token, external.key as Uint8Array, { ...claims, algorithms: external.algorithms });
        // A finite expiry: `"exp":1e400` parses to Infinity, which jose takes as never expiring.
        if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number' || !Number.isFinite(payload.exp)) return null;
        // Only the platform's own secret can vouch for an execution's initiator.
        const { initiator, execution_id: executionId } = payload;
        if (useSecret && payload.scope === EXECUTION_SCOPE && typeof initiator === 'string' && typeof executionId === 'string') {
          return { sub: payload.sub, exp: payload.exp, delegation: { initiatorId: initiator, executionId } };
        }
        const apiKeyId = payload[API_KEY_CLAIM];
        return useSecret && typeof apiKeyId === 'string' ? { sub: payload.sub, exp: payload.exp, apiKeyId } : { sub: payload.sub, exp: payload.exp };
      } catch {
        return null;
      }
    },
    async mint(principalId, ttlSeconds, extra = {}) {
      const now = Math.floor(Date.now() / 1000);
      const exp = now + ttlSeconds;
      let jwt = new SignJWT(extra)
        .setProtectedHeader({ alg: 'HS256', kid: PLATFORM_KID, typ: 'JWT' })
        .setSubject(principalId)
        .setIssuedAt(now)
        .setExpirationTime(exp)
        .setJti(crypto.randomUUID());
      if (options.issuer) jwt = jwt.setIssuer(options.issuer);
      if (options.audience) jwt = jwt.setAudience(options.audience);
      return { token: await jwt.sign(secret), expiresAt: new Date(exp * 1000) };
    },
  };
}
