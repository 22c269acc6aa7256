// Shared vocabulary of the engine: dialects, logical types, and the runner the app supplies.
import type { SQL } from 'drizzle-orm';

export type Dialect = 'sqlite' | 'postgres';

/** How the engine runs SQL; the app supplies it (the database layer's sqliteRunner and postgresRunner are the stock ones). */
export interface SqlRunner {
  readonly dialect: Dialect;
  all(query: SQL): Promise<Record<string, unknown>[]>;
}

/** Logical types a field can be declared with. */
export type FieldType = 'uuid' | 'string' | 'integer' | 'number' | 'boolean' | 'timestamp' | 'json' | 'array';

/** Types an expression can have while compiling: field types plus `date` (from a DATE cast). */
export type ValueType = FieldType | 'date';

/** Element types of array fields. */
export type ScalarType = 'string' | 'integer' | 'number' | 'boolean' | 'uuid';

export const isScalarType = (t: ValueType): boolean => t !== 'json' && t !== 'array';
