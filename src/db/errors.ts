// Recognises constraint violations across both drivers (drizzle wraps the driver error in `cause`).

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
