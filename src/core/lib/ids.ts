// Every id in the platform is a UUID (DESIGN §2). Checking the shape before a lookup turns a
// malformed id into a clean 404 (Postgres would otherwise reject the query).

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID.test(value);
