/**
 * `askseam/sqlite`: asks kept in one SQLite file, shared by every process on
 * the machine that opens it (DESIGN §10). Needs the optional peer
 * `better-sqlite3` 12.x.
 */
export { createSqliteStore } from './sqlite-store.js'
export type { SqliteStoreOptions } from './sqlite-store.js'
