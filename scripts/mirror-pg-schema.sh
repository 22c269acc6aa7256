#!/usr/bin/env bash
# Regenerates src/core/db/schema/pg.ts from src/core/db/schema/sqlite.ts: same tables and columns, Postgres types.
set -euo pipefail
cd "$(dirname "$0")/../src/core/db/schema"
sed -e "s#drizzle-orm/sqlite-core#drizzle-orm/pg-core#" \
 -e "s#sqliteTable, text, integer, primaryKey, index, uniqueIndex#pgTable, text, integer, bigserial, boolean, jsonb, timestamp, uuid, primaryKey, index, uniqueIndex#" \
 -e "s#sqliteTable(#pgTable(#g" \
 -e "s#integer('seq').primaryKey()#bigserial('seq', { mode: 'number' }).primaryKey()#" \
 -e "s#^const id = .*#const id = (name: string) => uuid(name);#" \
 -e "s#^const ts = .*#const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });#" \
 -e "s#^const json = .*#const json = <T>(name: string) => jsonb(name).\$type<T>();#" \
 -e "s#^const bool = .*#const bool = (name: string) => boolean(name);#" \
 -e "1,2c\\// Postgres tables (scale-out). Mirrors ./sqlite.ts column for column: ids as uuid,\\n// timestamps as timestamptz(3), JSON and arrays as jsonb, booleans as boolean. Generated from\\n// sqlite.ts by scripts/mirror-pg-schema.sh; test/core/db/schema.test.ts checks they agree." \
 sqlite.ts > pg.ts
