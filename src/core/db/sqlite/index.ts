// SQLite behind the Database interface: opened (and migrated) by ./open.ts, list queries on
// reader threads (./readers.ts).

export { openSqlite } from './open.ts';
