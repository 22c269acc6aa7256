// Recognises constraint violations and an unreachable database across both drivers (drizzle wraps
// the driver error in `cause`).

export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return true;
    if (typeof message === 'string' && message.includes('UNIQUE constraint failed')) return true;
  }
  return false;
}

export function isForeignKeyViolation(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return true;
    if (typeof message === 'string' && message.includes('FOREIGN KEY constraint failed')) return true;
  }
  return false;
}

/** Socket-level and postgres.js connection failures. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND',
  'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED',
  'SQLITE_BUSY', 'SQLITE_LOCKED',
]);

/**
 * The database cannot serve right now (down, unreachable, refusing connections, shutting down,
 * out of connections, locked): a 503 for the request, not an internal error.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code } = e as { code?: unknown };
    if (typeof code !== 'string') continue;
    // SQLSTATE 08 connection exception, 57P01–57P05 shutdown/cannot connect now, 53300 too many
    // connections, 55000 for a database not accepting connections.
    if (CONNECTION_CODES.has(code) || code.startsWith('08') || code.startsWith('57P') || code === '53300' || code === '55000') return true;
  }
  return false;
}
