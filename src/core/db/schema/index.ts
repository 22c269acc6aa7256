// The drizzle tables, one namespace per dialect (identically named; ../database.ts says why).
// drizzle-kit reads the two files themselves (drizzle.*.config.ts).

export * as pgTables from './pg.ts';
export * as sqliteTables from './sqlite.ts';
