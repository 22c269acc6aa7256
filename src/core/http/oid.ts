// The distributed operation id carried in `x-svc-oid` on every response of both origins.

const VALID_OID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Continues a valid incoming oid (1–128 chars of [A-Za-z0-9._:-]), else makes a new one. */
export function operationId(incoming: string | null | undefined): string {
  return incoming && VALID_OID.test(incoming) ? incoming : crypto.randomUUID();
}
