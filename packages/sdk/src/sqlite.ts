/**
 * `@media-agent/sdk/sqlite`: the embedded SQLite storage (better-sqlite3, one file, WAL).
 *
 * @packageDocumentation
 */
export {};
