// List tables are declared from the drizzle schema, not written out again: a list names the fields
// it allows (an allowlist, so a column added later, a secret's hash say, is never listable by
// accident) and takes each one's column, type and nullability from the Postgres table.
import { getTableColumns, getTableName, type Table } from 'drizzle-orm';
import type { FieldDef, FieldType } from './model/index.ts';

const TYPES: Readonly<Record<string, FieldType>> = {
  PgUUID: 'uuid',
  PgText: 'string',
  PgInteger: 'integer',
  PgBigSerial53: 'integer',
  PgTimestamp: 'timestamp',
  PgJsonb: 'json',
  PgBoolean: 'boolean',
};

/** The physical name of a drizzle table. */
export const tableName = (table: Table): string => getTableName(table);

/**
 * The fields `names` of `table`, by the schema's property names; `extra` adds what the schema does
 * not say (JSON paths, hidden fields) or overrides it. Throws at load on a name the table lacks.
 */
export function fieldsOf<T extends Table>(table: T, names: readonly (keyof T['_']['columns'] & string)[], extra: Partial<Record<string, Partial<FieldDef>>> = {}): Record<string, FieldDef> {
  const columns = getTableColumns(table) as Record<string, { name: string; columnType: string; notNull: boolean }>;
  const fields: Record<string, FieldDef> = {};
  for (const name of names) {
    const column = columns[name];
    if (!column) throw new Error(`${getTableName(table)}: no column '${name}'`);
    const type = TYPES[column.columnType];
    if (!type) throw new Error(`${getTableName(table)}.${name}: column type ${column.columnType} has no list type`);
    fields[name] = { column: column.name, type, ...(column.notNull ? {} : { nullable: true }), ...extra[name] };
  }
  return fields;
}
