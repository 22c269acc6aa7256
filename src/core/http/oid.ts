// The distributed operation id carried in `x-svc-oid` on every response of both origins.

const VALID_OID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What a credential looks like (an API key, a JWT): never continued, since the oid is echoed and logged. */
const CREDENTIAL_LIKE = /^(sk-|eyJ)/;

/**
 * Continues a valid incoming oid (1–128 chars of [A-Za-z0-9._:-], not shaped like an `sk-` key or
 * a JWT), else makes a new one.
 */
export function operationId(incoming: string | null | undefined): string {
  return incoming && VALID_OID.test(incoming) && !CREDENTIAL_LIKE.test(incoming) ? incoming : crypto.randomUUID();
}
